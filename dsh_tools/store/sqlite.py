"""``SqliteStore``: one file, the standard library's ``sqlite3``, safe for several processes.

The file is in WAL mode (readers never block the writer) with
``synchronous=NORMAL``: a commit survives the process dying, and only a power
loss may cost the last transactions. Statements run on one thread of the
store's own, so the event loop never waits on another process, and write
transactions take the lock first (``BEGIN IMMEDIATE``) so two processes never
deadlock upgrading a read. Another process holding the lock is waited for
up to ``busy_timeout`` seconds.

Fast path (journal writes): a commit in WAL mode without ``fsync`` is an
append to a file, cheaper than handing it to the thread and back, so
``write`` first tries it on the caller's thread with a connection that never
waits for the lock (``busy_timeout`` 0) and never checkpoints (the fsyncing
part); if the lock is taken, the write goes to the thread as usual. The
thread checkpoints the WAL every :data:`CHECKPOINT_EVERY` inline writes.
A test proves both paths keep the same rows.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Final, TypeVar

from dsh_tools.approval import ApprovalVerdict
from dsh_tools.json_values import JsonValue, dumps
from dsh_tools.outcome import RecordOutcome
from dsh_tools.store import sql
from dsh_tools.store.base import DEFAULT_MAX_VALUE_BYTES, StoreBase, check_decision, check_query
from dsh_tools.store.records import ApprovalDecision, CallRecord, ParkedCall, SessionEvent

__all__ = ["SqliteStore"]

T = TypeVar("T")

_DIALECT: Final = sql.Dialect(serial="INTEGER PRIMARY KEY AUTOINCREMENT", placeholder="?")
CHECKPOINT_EVERY: Final = 256
"""Inline journal writes between two WAL checkpoints (run on the store's thread)."""

POLL_SECONDS: Final = 0.25
"""How often ``wait_for_decision`` looks for a decision made by another process (SQLite has no notifications)."""


class SqliteStore(StoreBase):
    """A store in one SQLite file; see the module docstring. ``path`` is created if missing."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        busy_timeout: float = 5.0,
        max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES,
    ) -> None:
        super().__init__(max_value_bytes=max_value_bytes)
        self.path = os.fspath(path)
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="dsh-sqlite")
        self._busy_timeout = busy_timeout
        self._db: sqlite3.Connection | None = None
        self._inline: sqlite3.Connection | None = None
        self._inline_writes = 0
        self._closed = False
        try:
            self._thread.submit(self._open).result()
        except BaseException:
            self._thread.shutdown(wait=False)
            raise

    @property
    def durable(self) -> bool:
        return True

    # -- the connection, on the store's thread ---------------------------------
    def _open(self) -> None:
        try:
            db = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None)
        except sqlite3.Error as error:
            raise sql.StoreError(f"cannot open SQLite store {self.path!r}: {error}") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            self._upgrade(db)
        except sqlite3.DatabaseError as error:
            db.close()
            raise sql.StoreError(f"{self.path!r} is not a usable dsh-tools store: {error}") from None
        except BaseException:
            db.close()
            raise
        self._db = db

    def _upgrade(self, db: sqlite3.Connection) -> None:
        db.execute("BEGIN IMMEDIATE")
        try:
            has = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'dsh_schema'").fetchone()
            if has is None:
                for statement in _DIALECT.schema():
                    db.execute(statement)
            else:
                row = db.execute("SELECT max(version) FROM dsh_schema").fetchone()
                version = row[0] if row is not None else None
                if type(version) is not int:
                    raise sql.StoreError(f"{self.path!r} has a dsh_schema table without a version")
                if version > sql.SCHEMA_VERSION:
                    raise sql.StoreError(
                        f"{self.path!r} was written by a newer dsh-tools (schema version {version}; "
                        f"this one reads up to {sql.SCHEMA_VERSION}): upgrade dsh-tools"
                    )
                for step in range(version, sql.SCHEMA_VERSION):
                    for statement in sql.MIGRATIONS[step]:
                        db.execute(statement)
                    db.execute("UPDATE dsh_schema SET version = ?", (step + 1,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._closed or self._db is None:
            raise sql.StoreError(f"SQLite store {self.path!r} is closed")
        db = self._db
        return await asyncio.get_running_loop().run_in_executor(self._thread, work, db)

    @staticmethod
    def _write(db: sqlite3.Connection, steps: Callable[[sqlite3.Connection], T]) -> T:
        db.execute("BEGIN IMMEDIATE")
        try:
            result = steps(db)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return result

    # -- parked calls -----------------------------------------------------------
    async def park(self, call: ParkedCall, *, max_per_agent: int) -> bool:
        params = sql.park_params(call, max_per_agent)
        return await self._run(lambda db: self._write(db, lambda d: d.execute(sql.PARK, params).rowcount == 1))

    async def parked(self, *, agent_id: str | None = None) -> list[ParkedCall]:
        params: tuple[str, ...] = ()
        if agent_id is None:
            query = "state = 'parked'"
        else:
            query, params = "agent_id = ? AND state IN ('parked', 'decided')", (agent_id,)
        statement = f"SELECT {sql.PARKED_COLUMNS} FROM dsh_parked WHERE {query} ORDER BY created_at"
        rows = await self._run(lambda db: db.execute(statement, params).fetchall())
        return [sql.parked_from_row(row) for row in rows]

    async def get_parked(self, approval_id: str) -> ParkedCall | None:
        if type(approval_id) is not str:
            return None
        statement = f"SELECT {sql.PARKED_COLUMNS} FROM dsh_parked WHERE approval_id = ?"
        row = await self._run(lambda db: db.execute(statement, (approval_id,)).fetchone())
        return None if row is None else sql.parked_from_row(row)

    async def set_program(self, approval_id: str, program: JsonValue) -> bool:
        params = (dumps(program).decode(), approval_id)
        return await self._run(lambda db: self._write(db, lambda d: d.execute(sql.SET_PROGRAM, params).rowcount == 1))

    async def decide(
        self,
        approval_id: str,
        outcome: ApprovalVerdict,
        *,
        arguments: JsonValue | None = None,
        decided_by: str | None = None,
    ) -> ApprovalDecision:
        decision = check_decision(approval_id, outcome, arguments, decided_by)
        params = (sql.dump_record(decision), decision.decided_at, approval_id)
        changed = await self._run(lambda db: self._write(db, lambda d: d.execute(sql.DECIDE, params).rowcount))
        if changed != 1:
            raise KeyError(f"no undecided parked call {approval_id!r}")
        return decision

    async def decided(self, agent_id: str) -> list[ParkedCall]:
        statement = f"SELECT {sql.PARKED_COLUMNS} FROM dsh_parked WHERE agent_id = ? AND state = 'decided' ORDER BY decided_at"
        rows = await self._run(lambda db: db.execute(statement, (agent_id,)).fetchall())
        return [sql.parked_from_row(row) for row in rows]

    async def claim(self, approval_id: str, *, owner: str, lease_seconds: float) -> ParkedCall:
        if type(approval_id) is not str:
            raise KeyError(f"no parked call {approval_id!r}")
        params = (owner, time.time() + lease_seconds, approval_id)
        row = await self._run(lambda db: self._write(db, lambda d: d.execute(sql.CLAIM, params).fetchone()))
        if row is None:
            raise KeyError(f"parked call {approval_id!r} is not waiting to run (unknown, undecided, or taken)")
        return sql.parked_from_row(row)

    async def renew(self, approval_id: str, *, owner: str, lease_seconds: float) -> bool:
        now = time.time()
        params = (now + lease_seconds, approval_id, owner, now)
        return await self._run(lambda db: self._write(db, lambda d: d.execute(sql.RENEW, params).rowcount == 1))

    async def finish(self, approval_id: str, *, owner: str) -> None:
        await self._run(lambda db: self._write(db, lambda d: d.execute(sql.FINISH, (approval_id, owner))))

    async def interrupted(self) -> list[ParkedCall]:
        statement = (
            f"SELECT {sql.PARKED_COLUMNS} FROM dsh_parked WHERE state = 'interrupted'"
            " OR (state = 'claimed' AND lease_until < ?) ORDER BY created_at"
        )
        rows = await self._run(lambda db: db.execute(statement, (time.time(),)).fetchall())
        return [sql.parked_from_row(row) for row in rows]

    def forget_agent(self, agent_id: str) -> None:
        """Durable: an agent's parked calls outlive its disposal (a later process may resume them)."""

    async def wait_for_decision(self, agent_id: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if await self.decided(agent_id):
                return
            await asyncio.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))

    # -- the journal --------------------------------------------------------------
    async def write(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None:
        rows = [sql.record_params(record, self.max_value_bytes) for record in records]
        event_rows = [sql.event_params(event) for event in events]

        def steps(db: sqlite3.Connection) -> None:
            if rows:
                db.executemany(sql.UPSERT_RECORD, rows)
            if event_rows:
                db.executemany(sql.APPEND_EVENT, event_rows)

        if not self._write_inline(steps):
            await self._run(lambda db: self._write(db, steps))

    def _write_inline(self, steps: Callable[[sqlite3.Connection], None]) -> bool:
        """The fast path (module docstring): ``True`` if written here, ``False`` if the lock was taken."""
        if self._closed:
            raise sql.StoreError(f"SQLite store {self.path!r} is closed")
        db = self._inline
        if db is None:
            db = self._inline = sqlite3.connect(self.path, timeout=0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA wal_autocheckpoint=0")
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError:
            return False  # another writer holds the lock: the thread waits for it instead
        try:
            steps(db)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        self._inline_writes += 1
        if self._inline_writes % CHECKPOINT_EVERY == 0 and self._db is not None:
            self._thread.submit(self._db.execute, "PRAGMA wal_checkpoint(PASSIVE)")
        return True

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
        check_query(agent_id, tool_name, call_id, parent_call_id, outcome, is_error, since, limit)
        statement, params = sql.journal_query(
            agent_id=agent_id, tool_name=tool_name, call_id=call_id, parent_call_id=parent_call_id,
            outcome=outcome, is_error=is_error, since=since, limit=limit,
        )
        rows = await self._run(lambda db: db.execute(statement, params).fetchall())
        return [sql.load_record(CallRecord, row[0]) for row in reversed(rows)]

    async def session_events(self, agent_id: str) -> list[SessionEvent]:
        statement = "SELECT agent_id, type, at, data FROM dsh_events WHERE agent_id = ? ORDER BY seq"
        rows = await self._run(lambda db: db.execute(statement, (agent_id,)).fetchall())
        return [sql.event_from_row(row) for row in rows]

    async def prune(self, *, before: float) -> int:
        def steps(db: sqlite3.Connection) -> int:
            gone = db.execute("DELETE FROM dsh_journal WHERE ended_at < ?", (before,)).rowcount
            gone += db.execute("DELETE FROM dsh_parked WHERE state = 'done' AND created_at < ?", (before,)).rowcount
            gone += db.execute("DELETE FROM dsh_events WHERE at < ?", (before,)).rowcount
            return gone

        return await self._run(lambda db: self._write(db, steps))

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        db, self._db = self._db, None
        if self._inline is not None:
            self._inline.close()
            self._inline = None
        if db is not None:
            await asyncio.get_running_loop().run_in_executor(self._thread, db.close)
        self._thread.shutdown(wait=False)
