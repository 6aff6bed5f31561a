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
from typing import Any, ClassVar, Final, TypeVar

import dsh_tools.store.sql as sql
import dsh_tools.store.txn as txn
from dsh_tools.store.rows import batches, journal_rows
from dsh_tools.store.base import DEFAULT_MAX_VALUE_BYTES
from dsh_tools.call_records import CallRecord, SessionEvent
from dsh_tools.store.relational import RelationalStore, Statement
from dsh_tools.store.sqlite_files import sqlite_url, system_file

__all__ = ["SqliteStore"]

T = TypeVar("T")

_DIALECT: Final = sql.Dialect(serial="INTEGER PRIMARY KEY AUTOINCREMENT", placeholder="?")
CHECKPOINT_EVERY: Final = 256
"""Inline journal writes between two WAL checkpoints (run on the store's thread)."""

_FAILURES: Final = (sqlite3.Error, OverflowError)
"""What ``sqlite3`` raises for a statement that failed (``OverflowError``: an int past 64 bits)."""

_REFUSED: Final = (sqlite3.IntegrityError, sqlite3.DataError, sqlite3.InterfaceError, OverflowError)
"""Of those, the failures a row's data causes (a constraint, a value SQLite cannot hold), not the file's state."""

POLL_SECONDS: Final = 0.25
"""How often ``wait_for_decision`` looks for a decision made by another process (SQLite has no notifications)."""


class SqliteStore(RelationalStore):
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
        self._file: tuple[int, int] | None = None  # (device, inode) of the file opened: see _check_file
        try:
            self._thread.submit(self._open).result()
        except BaseException:
            self._thread.shutdown(wait=False)
            raise

    async def _queue_database(self) -> str | None:
        sibling = system_file(self.path)
        return sqlite_url(sibling) if os.path.exists(sibling) else None

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
            self._file = _identity(self.path)
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
                for statements, version in sql.upgrade_steps(row, repr(self.path), _DIALECT):
                    for statement in statements:
                        db.execute(statement)
                    db.execute("UPDATE dsh_schema SET version = ?", (version,))
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        if self._closed or self._db is None:
            raise sql.StoreError(f"SQLite store {self.path!r} is closed")
        return await asyncio.get_running_loop().run_in_executor(self._thread, self._guarded, work, self._db)

    def _guarded(self, work: Callable[[sqlite3.Connection], T], db: sqlite3.Connection) -> T:
        """``work(db)``, its ``sqlite3`` errors raised as :class:`StoreError` (``RecordRefused`` for a row's data)."""
        self._check_file()
        try:
            return work(db)
        except _FAILURES as error:
            raise self._error(error) from error

    def _check_file(self) -> None:
        """Refuse to go on when the path no longer names the file this store opened (deleted, or replaced).

        The open connections would keep reading and writing the old file,
        which no other process can open any more: parked calls nobody else
        can see or decide, a journal nobody reads. One ``stat`` per statement
        finds it, and the store then fails loudly (counted by the callers
        that count write failures) instead of quietly.
        """
        if self._file is not None and _identity(self.path) != self._file:
            raise sql.StoreError(
                f"SQLite store file {self.path!r} was deleted or replaced after it was opened: "
                "what is written now would reach no other process; open the store again"
            )

    def _error(self, error: BaseException) -> sql.StoreError:
        """A ``sqlite3`` failure as the store's callers read it: ``RecordRefused`` when a row's data caused it.

        The journal writes a refused group again row by row; a failure of
        the file itself (locked, unwritable, gone) is a plain ``StoreError``,
        which row by row would only repeat.
        """
        if isinstance(error, _REFUSED):
            return sql.RecordRefused(f"SQLite refused a row of {self.path!r}: {type(error).__name__}: {error}")
        return sql.StoreError(f"SQLite store {self.path!r} failed: {type(error).__name__}: {error}")

    @staticmethod
    def _write_steps(db: sqlite3.Connection, steps: Callable[[sqlite3.Connection], T]) -> T:
        db.execute("BEGIN IMMEDIATE")
        try:
            result = steps(db)
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return result

    # -- the primitives RelationalStore runs on ------------------------------------------
    async def _read(self, statement: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        return await self._run(lambda db: db.execute(statement, params).fetchall())

    async def _write(self, statement: str, params: Sequence[object]) -> tuple[int, list[tuple[Any, ...]]]:
        def steps(db: sqlite3.Connection) -> tuple[int, list[tuple[Any, ...]]]:
            cursor = db.execute(statement, params)
            rows = cursor.fetchall()
            return cursor.rowcount, rows

        return await self._run(lambda db: self._write_steps(db, steps))

    async def _transact(self, make: Callable[[], txn.Txn[T]]) -> T:
        def steps(db: sqlite3.Connection) -> T:
            def execute(statement: str, params: Sequence[object]) -> txn.Answer:
                if statement == txn.LOCK:
                    return 0, []  # BEGIN IMMEDIATE already holds the write lock
                cursor = db.execute(_DIALECT.sql(statement), params)
                rows = cursor.fetchall()
                return cursor.rowcount, rows

            return txn.drive(make(), execute)

        return await self._run(lambda db: self._write_steps(db, steps))

    async def _write_all(
        self, statements: Sequence[Statement], batches: Sequence[tuple[str, Sequence[Sequence[object]]]] = ()
    ) -> int:
        def steps(db: sqlite3.Connection) -> int:
            changed = sum(db.execute(statement, params).rowcount for statement, params in statements)
            for statement, rows in batches:
                db.executemany(statement, rows)
            return changed

        if not statements and self._write_inline(steps):
            return 0
        return await self._run(lambda db: self._write_steps(db, steps))

    def write_now_if_free(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> bool:
        """``write`` on the caller's thread when no other writer holds the lock (``False``: nothing written).

        The call journal's fast path for a lone call: no task, no thread hop;
        and one record alone is one statement, its own transaction.
        """
        rows, refused = journal_rows(records, events, self.max_value_bytes)
        if refused or any(row.fill is not None for row in rows):
            return False  # the thread path (``write``) counts these once, and fills thread slots in its transaction
        try:
            if len(rows) == 1 and rows[0].record_id is not None:
                return self._write_inline(None, (rows[0].statement, rows[0].params))

            def steps(db: sqlite3.Connection) -> None:
                for statement, batch in batches(rows):
                    db.executemany(statement, batch)

            return self._write_inline(steps)
        except sql.RecordRefused:
            return False  # the thread path writes the group row by row, losing only the refused row

    def _write_inline(self, steps: Callable[[sqlite3.Connection], object] | None, single: Statement | None = None) -> bool:
        """The journal's fast path (module docstring): ``True`` if written here, ``False`` if the lock was taken.

        ``single`` is one statement run as its own transaction (autocommit);
        ``steps`` run inside ``BEGIN IMMEDIATE`` ... ``COMMIT``.
        """
        if self._closed:
            raise sql.StoreError(f"SQLite store {self.path!r} is closed")
        self._check_file()
        db = self._inline
        if db is None:
            db = self._inline = sqlite3.connect(self.path, timeout=0, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA wal_autocheckpoint=0")
        try:
            db.execute("BEGIN IMMEDIATE") if single is None else db.execute(*single)
        except sqlite3.OperationalError as error:
            if error.sqlite_errorcode & 0xFF != sqlite3.SQLITE_BUSY:
                raise self._error(error) from error
            return False  # another writer holds the lock: the thread waits for it instead
        except _FAILURES as error:
            raise self._error(error) from error
        if steps is not None:
            try:
                steps(db)
            except BaseException as error:
                db.execute("ROLLBACK")
                if isinstance(error, _FAILURES):
                    raise self._error(error) from error
                raise
            db.execute("COMMIT")
        self._inline_writes += 1
        if self._inline_writes % CHECKPOINT_EVERY == 0 and self._db is not None:
            self._thread.submit(self._db.execute, "PRAGMA wal_checkpoint(PASSIVE)")
        return True

    _ROW_MARK: ClassVar[str] = "CASE WHEN outcome = 'running' AND json_valid(body) THEN json_extract(body, '$.progress') END"
    """A running row changes its progress in place: its mark is the progress (store/changes.py)."""

    async def _change_gate(self) -> object:
        """``PRAGMA data_version`` (other connections' commits) and ``total_changes`` (this one's): no table read."""
        return await self._run(lambda db: (db.execute("PRAGMA data_version").fetchone()[0], db.total_changes))

    async def wait_for_decision(self, agent_id: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if await self.decided(agent_id):
                return
            await asyncio.sleep(min(POLL_SECONDS, max(0.0, deadline - time.monotonic())))

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


def _identity(path: str) -> tuple[int, int] | None:
    """The (device, inode) of the file at ``path``; ``None`` if there is none (or ``path`` names no file, ``:memory:``)."""
    if path in ("", ":memory:"):
        return None
    try:
        found = os.stat(path)
    except FileNotFoundError:
        return None
    return found.st_dev, found.st_ino
