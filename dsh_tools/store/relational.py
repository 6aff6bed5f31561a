"""``RelationalStore``: every store operation, once, in SQL, for SQLite and PostgreSQL alike.

The two relational stores differ only in how a statement reaches their
engine (a thread of the store's own with ``sqlite3``; psycopg's asyncio
connection) and in two engine features (PostgreSQL serialises parking per
agent with an advisory lock and announces decisions with ``NOTIFY``). Those
are the few primitives a subclass provides; what each operation means is
written here, on the statements of :mod:`.sql`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, TypeVar

from pyrsistent import pmap

from dsh_tools.errors import safe_str
from dsh_tools.json_values import JsonValue, dumps
from dsh_tools.tool_types import describe_value
import dsh_tools.store.sql as sql
import dsh_tools.store.txn as txn
from dsh_tools.store.txn import Statement
from dsh_tools.store.rows import JournalRow, batches, journal_rows
from dsh_tools.store.base import StoreBase, checked_before, storable_id
from dsh_tools.store.changes import MAX_CHANGED, MAX_TRACKED, ChangeCursor, StoreChanges, diff_marks
from dsh_tools.store.interrupted import interrupted_claim, interrupted_record
from dsh_tools.store.relational_threads import RelationalThreads
from dsh_tools.approval import ApprovalDecision
from dsh_tools.call_records import CallRecord, InterruptedCall, JournalQuery, ParkedCall, SessionEvent
from dsh_tools.store.spilled import (
    SpilledPage, check_locator, check_page, owner_key, page_of_parts, part_range, parts_of, valid_locator,
)

__all__ = ["RelationalStore", "Statement"]

T = TypeVar("T")


_PARKED = f"SELECT {sql.PARKED_COLUMNS} FROM dsh_parked"


class RelationalStore(RelationalThreads, StoreBase):
    """The shared operations; a subclass connects and provides the primitives below."""

    # -- primitives (one transaction each) ------------------------------------------
    async def _read(self, statement: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        """The rows of one query."""
        raise NotImplementedError

    async def _write(self, statement: str, params: Sequence[object]) -> tuple[int, list[tuple[Any, ...]]]:
        """Run one changing statement; its rowcount and rows (a transaction that must serialise uses ``_transact``)."""
        raise NotImplementedError

    async def _write_all(self, statements: Sequence[Statement], batches: Sequence[tuple[str, Sequence[Sequence[object]]]] = ()) -> int:
        """Run statements, then ``executemany`` batches, in one transaction; the statements' summed rowcount."""
        raise NotImplementedError

    async def _transact(self, make: Callable[[], txn.Txn[T]]) -> T:
        """Run a read-then-write transaction (:mod:`.txn`) made by ``make`` (called again if the engine retries it)."""
        raise NotImplementedError

    async def _announce(self, agent_id: str) -> None:
        """A decision for ``agent_id`` was committed (PostgreSQL notifies its listeners; SQLite is polled)."""

    _ROW_MARK: ClassVar[str] = "NULL"
    """SQL for what tells one version of a journal row from the next, beyond its outcome and end (see ``changes``)."""

    _CHANGE_WINDOW: ClassVar[int] = 0
    """How many ``seq`` below the last one seen ``changes`` looks again (rows committed out of ``seq`` order)."""

    async def _change_gate(self) -> object:
        """A cheap token that stays equal while nothing was committed, or ``None`` when the store has none."""
        return None

    # -- parked calls -----------------------------------------------------------------
    @property
    def durable(self) -> bool:
        return True

    async def park(self, call: ParkedCall, *, max_per_agent: int) -> bool:
        return await self._transact(lambda: txn.park(call, max_per_agent))

    _next_expiry: float | None = None
    """When the first waiting call expires, as the last look saw it (``changes`` skips a look until then)."""

    async def expire(self, approval_id: str | None = None) -> int:
        """Settle the waiting calls past their time as expired (store/expiry.py); how many. One cheap read when none is due."""
        if approval_id is None:
            rows = await self._read(txn.FIRST_EXPIRY, ())
            first = rows[0][0] if rows else None
            self._next_expiry = None if first is None else float(first)
            if first is None or first >= time.time():
                return 0
        return await self._transact(lambda: txn.expire_due(self.max_value_bytes, approval_id))

    async def parked(self, *, agent_id: str | None = None) -> list[ParkedCall]:
        await self.expire()
        if agent_id is None:
            rows = await self._read(f"{_PARKED} WHERE state = 'parked' ORDER BY created_at", ())
        else:
            where = "agent_id = ? AND state IN ('parked', 'decided')"
            rows = await self._read(f"{_PARKED} WHERE {where} ORDER BY created_at", (sql.column(agent_id),))
        return self._parked_rows(rows)

    async def get_parked(self, approval_id: str) -> ParkedCall | None:
        if not storable_id(approval_id):
            return None
        found = await self._one_parked(approval_id)
        if found is not None and found.state == "parked" and found.expires_at is not None and found.expires_at < time.time():
            await self.expire(approval_id)  # past its time: settled by this look, then read as it now is
            found = await self._one_parked(approval_id)
        return found

    async def _one_parked(self, approval_id: str) -> ParkedCall | None:
        found = self._parked_rows(await self._read(f"{_PARKED} WHERE approval_id = ?", (approval_id,)))
        return found[0] if found else None

    async def set_program(self, approval_id: str, program: JsonValue) -> bool:
        text = dumps(program).decode()
        return await self._transact(lambda: txn.set_program(approval_id, text))

    async def _decide(self, decision: ApprovalDecision) -> None:
        agent_id = await self._transact(lambda: txn.decide(decision))
        if agent_id is None:
            await self.expire(decision.approval_id)  # it may have just become due: settle it now, not at the next look
            raise KeyError(f"no undecided parked call {decision.approval_id!r} (unknown, decided, or expired)")
        await self._announce(agent_id)

    async def decided(self, agent_id: str) -> list[ParkedCall]:
        await self.expire()
        where = "agent_id = ? AND state = 'decided'"
        rows = await self._read(f"{_PARKED} WHERE {where} ORDER BY decided_at", (sql.column(agent_id),))
        return self._parked_rows(rows)

    def _parked_rows(self, rows: Iterable[tuple[Any, ...]]) -> list[ParkedCall]:
        """The parked calls of stored rows; one that does not read back is skipped and counted (its neighbours are listed)."""
        found = []
        for row in rows:
            try:
                found.append(sql.parked_from_row(row))
            except sql.UNREADABLE as error:
                self.note_unreadable("parked call", error)
        return found

    async def claim(self, approval_id: str, *, owner: str, lease_seconds: float) -> ParkedCall:
        if not storable_id(approval_id):
            raise KeyError(f"no parked call {describe_value(approval_id)}")
        _, rows = await self._write(sql.CLAIM, (owner, time.time() + lease_seconds, approval_id))
        if not rows:
            raise KeyError(f"parked call {approval_id!r} is not waiting to run (unknown, undecided, or taken)")
        return sql.parked_from_row(rows[0])

    async def renew(self, approval_id: str, *, owner: str, lease_seconds: float) -> bool:
        if not storable_id(approval_id):
            return False
        now = time.time()
        changed, _ = await self._write(sql.RENEW, (now + lease_seconds, approval_id, owner, now))
        return changed == 1

    async def finish(self, approval_id: str, *, owner: str, outcome: str | None = None) -> None:
        if storable_id(approval_id):
            await self._transact(lambda: txn.finish(approval_id, owner, outcome))

    def forget_agent(self, agent_id: str) -> None:
        """Durable: an agent's parked calls outlive its disposal (a later process may resume them)."""

    # -- the journal ------------------------------------------------------------------
    async def write(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None:
        """Write ``records`` and ``events`` in one commit; one that cannot be stored is counted and logged, alone."""
        rows, refused = journal_rows(records, events, self.max_value_bytes)
        self._note_refused(refused)
        await self._write_rows(rows)

    def _note_refused(self, refused: Sequence[tuple[str, Exception]]) -> None:
        """Count and log each journal row that could not be encoded (its neighbours are written)."""
        for label, error in refused:
            self.note_failure(sql.StoreError(f"{label} cannot be stored: {type(error).__name__}: {safe_str(error)}"))

    async def _write_rows(self, rows: Sequence[JournalRow]) -> None:
        """Commit ``rows`` as one group; if the database refuses the group for a row's data, commit each alone.

        So a record the database will not hold costs only itself: its
        neighbours (other agents' calls, a batch sibling's settled record) are
        written, and it is counted and logged by name.
        """
        if not rows:
            return
        try:
            await self._write_group(rows)
        except sql.RecordRefused:
            for row in rows:
                try:
                    await self._write_group((row,))
                except sql.RecordRefused as error:
                    self.note_failure(sql.StoreError(f"{row.label} was refused: {safe_str(error)}"))

    async def _write_group(self, rows: Sequence[JournalRow]) -> None:
        """One commit of ``rows``: ``executemany`` batches, or, when a row's call fills a thread slot, a transaction that fills it too."""
        if any(row.fill is not None for row in rows):
            await self._transact(lambda: txn.journal_write(rows))
        else:
            await self._write_all((), batches(rows))

    async def _journal(self, query: JournalQuery) -> list[CallRecord]:
        statement, params = sql.journal_query(query)
        return self._readable((body, late) for body, late in reversed(await self._read(statement, params)))

    def _readable(self, rows: Iterable[tuple[str, str | None]]) -> list[CallRecord]:
        """The records of stored ``(body, late)`` rows; one that does not read back is skipped and counted."""
        records = []
        for body, late in rows:
            try:
                records.append(sql.record_from_row(body, late))
            except sql.UNREADABLE as error:
                self.note_unreadable("journal", error)
        return records

    # -- leases on running calls (durable stores) ------------------------------------
    async def renew_leases(self, owner: str, *, lease_seconds: float) -> int:
        """Extend every lease ``owner`` holds on a running call, in one statement; how many."""
        changed, _ = await self._write(sql.RENEW_LEASES, (time.time() + lease_seconds, sql.column(owner)))
        return changed

    async def interrupted(self) -> list[InterruptedCall]:
        """Lapsed running calls (oldest first), then lapsed claims that left no running record."""
        now = time.time()
        found: list[InterruptedCall] = []
        running_approvals: set[str] = set()
        for body, late, owner, lease_until in await self._read(
            f"SELECT body, late, owner, lease_until FROM dsh_journal WHERE {sql.LAPSED} ORDER BY seq", (now,)
        ):
            for record in self._readable(((body, late),)):
                found.append(interrupted_record(record, owner, lease_until))
                if record.approval_id is not None:
                    running_approvals.add(record.approval_id)
        where = "state = 'interrupted' OR (state = 'claimed' AND lease_until < ?)"
        for parked in self._parked_rows(await self._read(f"{_PARKED} WHERE {where} ORDER BY created_at", (now,))):
            if parked.approval_id not in running_approvals:
                found.append(interrupted_claim(parked))
        return found

    async def take_interrupted(self, record_id: str, *, owner: str, lease_seconds: float) -> CallRecord | None:
        """Atomically take a lapsed running call for ``owner`` (one taker wins); its record, or ``None``."""
        if not storable_id(record_id):
            return None
        now = time.time()
        _, rows = await self._write(sql.TAKE_INTERRUPTED, (sql.column(owner), now + lease_seconds, record_id, now))
        return self._readable(((rows[0][0], None),))[0] if rows else None

    async def take_claim(self, approval_id: str, *, owner: str) -> ParkedCall | None:
        """Atomically take a lapsed claim (it is then done: never run by its first claimant); the parked call, or ``None``."""
        if not storable_id(approval_id):
            return None
        statement = (
            "UPDATE dsh_parked SET state = 'done', claimed_by = ? WHERE approval_id = ?"
            f" AND (state = 'interrupted' OR (state = 'claimed' AND lease_until < ?)) RETURNING {sql.PARKED_COLUMNS}"
        )
        _, rows = await self._write(statement, (owner, approval_id, time.time()))
        found = self._parked_rows(rows)
        return found[0] if found else None

    async def session_events(self, agent_id: str) -> list[SessionEvent]:
        statement = "SELECT agent_id, type, at, data FROM dsh_events WHERE agent_id = ? ORDER BY seq"
        events = []
        for row in await self._read(statement, (sql.column(agent_id),)):
            try:
                events.append(sql.event_from_row(row))
            except sql.UNREADABLE as error:
                self.note_unreadable("session event", error)
        return events

    async def _queue_database(self) -> str | None:
        """The DBOS system database beside this store, if queues ever used it (``dsh_tools.dbos``)."""
        return None

    async def prune(self, *, before: float) -> int:
        """Delete settled records, finished parked calls, events, ready threads not touched and spilled results
        kept before ``before``; how many rows.

        The finished workflow rows of queued calls go too (:mod:`dsh_tools.dbos.retire`).
        """
        before = checked_before(before)
        system_url = await self._queue_database()
        if system_url is not None:
            from dsh_tools.dbos.retire import retire_workflows

            await retire_workflows(system_url, before)
        idle = "SELECT thread_id FROM dsh_threads WHERE status = 'ready' AND updated_at < ?"
        return await self._write_all((
            ("DELETE FROM dsh_journal WHERE ended_at < ?", (before,)),
            ("DELETE FROM dsh_parked WHERE state IN ('done', 'held', 'expired') AND created_at < ?", (before,)),
            ("DELETE FROM dsh_events WHERE at < ?", (before,)),
            ("DELETE FROM dsh_approval_events WHERE at < ?", (before,)),
            (f"DELETE FROM dsh_thread_messages WHERE thread_id IN ({idle})", (before,)),
            ("DELETE FROM dsh_threads WHERE status = 'ready' AND updated_at < ?", (before,)),
            *((statement, (before,)) for statement in sql.PRUNE_SPILLED),
        ))

    # -- spilled results (store/spilled.py) ------------------------------------------------
    async def keep_spilled(self, locator: str, agent_id: str, text: str) -> None:
        """One row for the value and one per part of its text, in one commit."""
        check_locator(locator)
        parts = [(locator, number, part.encode("utf-8")) for number, part in enumerate(parts_of(text))]
        head = (locator, owner_key(agent_id), time.time(), len(text), len(text.encode("utf-8")))
        await self._write_all(((sql.KEEP_SPILLED, head),), ((sql.KEEP_SPILLED_PART, parts),) if parts else ())

    async def read_spilled(self, locator: str, agent_id: str, offset: int, limit: int) -> SpilledPage | None:
        """The parts a page needs, and the value's size, in one query (never the whole text)."""
        offset, limit = check_page(offset, limit)
        if not valid_locator(locator):
            return None
        first, last = part_range(offset, limit)
        rows = await self._read(sql.READ_SPILLED, (first, last, locator, owner_key(agent_id)))
        if not rows:
            return None
        parts = [(int(number), bytes(data)) for _, number, data in rows if number is not None]
        return page_of_parts(int(rows[0][0]), parts, offset, limit)

    # -- what changed (store/changes.py) -------------------------------------------------
    async def changes(self, cursor: ChangeCursor | None = None) -> StoreChanges:
        """What changed since ``cursor``: the marks of new, windowed and running rows, then only changed bodies."""
        gate = await self._change_gate()  # first: a commit after it changes the next gate
        due = self._next_expiry is not None and self._next_expiry < time.time()
        if cursor is not None and gate is not None and gate == cursor.gate and not due:
            return StoreChanges(cursor)
        if await self.expire():  # the inspector's approvals: a call past its time leaves the list, settled
            gate = await self._change_gate()
        columns = f"seq, record_id, outcome, ended_at, {self._ROW_MARK} FROM dsh_journal"
        window = self._CHANGE_WINDOW
        if cursor is None:
            rows = await self._read(f"SELECT {columns} ORDER BY seq DESC LIMIT ?", (MAX_TRACKED,))
            seen: dict[str, tuple[object, ...]] = {}
        else:
            rows = await self._read(
                f"SELECT {columns} WHERE seq > ? ORDER BY seq DESC LIMIT ?", (cursor.last - window, window + MAX_CHANGED)
            )
            seen = dict(cursor.marks)
            looked = {row[1] for row in rows}
            followed = [record_id for record_id in seen if record_id not in looked]
            if followed:
                rows += await self._read(f"SELECT {columns} WHERE record_id IN ({_placeholders(len(followed))})", followed)
        rows.sort(key=lambda row: int(row[0]))
        last = max([cursor.last if cursor is not None else 0, *(int(row[0]) for row in rows)])
        now = ((row[1], tuple(row[2:]), row[2] == "running" or int(row[0]) > last - window) for row in rows)
        changed, kept = diff_marks(seen, now, first=cursor is None)
        records: list[CallRecord] = []
        if changed:
            bodies = await self._read(f"SELECT seq, body FROM dsh_journal WHERE record_id IN ({_placeholders(len(changed))})", changed)
            records = self._readable((body, None) for _, body in sorted(bodies, key=lambda row: int(row[0])))
        parked = await self._read("SELECT approval_id FROM dsh_parked WHERE state = 'parked' ORDER BY created_at", ())
        return StoreChanges(ChangeCursor(last, pmap(kept), gate), tuple(records), tuple(row[0] for row in parked))


def _placeholders(count: int) -> str:
    """``?, ?, ...``: the placeholders of an ``IN`` list of ``count`` values."""
    return ", ".join("?" * count)

