"""``PostgresStore``: parked calls and the journal in PostgreSQL, for replicas on several machines.

Built on psycopg 3 (extra ``dsh-tools[postgres]``): it ships its own type
information (``mypy --strict`` reads it with no stubs), has a native asyncio
connection, ``LISTEN``/``NOTIFY`` through ``notifies()``, and a binary wheel
that needs no libpq on the machine. (asyncpg is as fast, but untyped.)

One connection serves the store's statements, one at a time; a second one
listens on the ``dsh_decisions`` channel (:mod:`.listener`), so
``watch_decisions`` reacts to a decision made on another replica as soon as
it is committed. Parking past the per-agent cap is serialised per agent with
a transaction-scoped advisory lock, so two replicas cannot both squeeze
under the cap.

A database that goes away (a restart, a failover) costs time, not the
process (``docs/durability.md``, "Failover"): both connections come back
with backoff (:mod:`.reconnect`); a statement that met a connection lost
while idle runs again on a new one; journal writes are held in a bounded
buffer (:mod:`.backlog`) and written once the database is back; every other
operation raises :class:`~dsh_tools.store.sql.StoreUnavailable` within the
connect timeout.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, Self, TypeVar

from dsh_tools.errors import safe_str
import dsh_tools.store.sql as sql
import dsh_tools.store.txn as txn
from dsh_tools.store.rows import JournalRow
from dsh_tools.store.backlog import DEFAULT_MAX_BUFFERED, JournalBacklog
from dsh_tools.store.base import DEFAULT_MAX_VALUE_BYTES
from dsh_tools.store.listener import DecisionListener
from dsh_tools.store.reconnect import Link, failure_of
from dsh_tools.call_records import StoreHealth
from dsh_tools.store.relational import RelationalStore, Statement

if TYPE_CHECKING:
    from psycopg import AsyncConnection, AsyncCursor

__all__ = ["PostgresStore"]

T = TypeVar("T")

_LOG = logging.getLogger("dsh_tools.store")

_DIALECT: Final = sql.Dialect(serial="BIGSERIAL PRIMARY KEY", placeholder="%s")
CHANNEL: Final = "dsh_decisions"
DEFAULT_CONNECT_TIMEOUT: Final = 5.0


class PostgresStore(RelationalStore):
    """A store in a PostgreSQL database; see the module docstring. Connects on first use.

    ``max_buffered``: how many journal records and session events it holds
    in memory while the database is away (:mod:`.backlog`).
    """

    def __init__(
        self,
        dsn: str,
        *,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES,
        max_buffered: int = DEFAULT_MAX_BUFFERED,
    ) -> None:
        super().__init__(max_value_bytes=max_value_bytes)
        if type(dsn) is not str:
            raise TypeError("PostgresStore takes a DSN string (postgresql://...)")
        self._dsn = dsn
        self._connect_timeout = connect_timeout
        self._backlog = JournalBacklog(max_buffered)
        self._link = Link(self._connect, self._upgrade)
        self._listener = DecisionListener(self._connect, CHANNEL, self._link.backoff.succeeded)
        self._statements = asyncio.Lock()  # one statement at a time on the connection
        self._journal_lock = asyncio.Lock()  # the backlog and the writes that drain it, one at a time
        self._flusher: asyncio.Task[None] | None = None
        self._closing = False
        self._closed = False

    async def __aenter__(self) -> Self:
        await self._link.get()
        return self

    def health(self) -> StoreHealth:
        """:meth:`StoreBase.health`, with the journal rows held while the database is away and those lost."""
        return super().health().set(buffered=len(self._backlog), dropped=self._backlog.dropped)

    # -- connecting -----------------------------------------------------------------
    async def _connect(self) -> AsyncConnection[Any]:
        try:
            import psycopg
        except ImportError:
            raise sql.StoreError("PostgresStore needs psycopg 3: pip install 'dsh-tools[postgres]'") from None
        try:
            async with asyncio.timeout(self._connect_timeout):
                return await psycopg.AsyncConnection.connect(
                    self._dsn, connect_timeout=max(1, int(self._connect_timeout))
                )
        except (TimeoutError, psycopg.Error) as error:
            raise sql.StoreUnavailable(
                f"cannot reach PostgreSQL within {self._connect_timeout:g} s: {type(error).__name__}: {safe_str(error)}"
            ) from None

    async def _upgrade(self, conn: AsyncConnection[Any]) -> None:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('dsh_schema'))")
            found = await (await conn.execute("SELECT to_regclass('dsh_schema') IS NOT NULL")).fetchone()
            if found is None or not found[0]:
                for statement in _DIALECT.schema():
                    await conn.execute(statement.encode())
                return
            row = await (await conn.execute("SELECT max(version) FROM dsh_schema")).fetchone()
            for statements, version in sql.upgrade_steps(row, "the database", _DIALECT):
                for statement in statements:
                    await conn.execute(statement.encode())
                await conn.execute("UPDATE dsh_schema SET version = %s", (version,))

    async def _tx(self, work: Callable[[AsyncCursor[Any]], Awaitable[T]]) -> T:
        """Run ``work`` in one transaction on the store's connection, one at a time.

        A connection lost before the transaction reached its commit (one that
        died while idle, through a restart) had nothing committed, so the
        work runs once more on a new connection; one lost during the commit
        may or may not have committed, so that is the caller's
        ``StoreUnavailable``, never a silent second run.
        """
        import psycopg

        for attempt in (1, 2):
            if self._closed:
                raise sql.StoreError("PostgreSQL store is closed")
            conn = await self._link.get()
            async with self._statements:
                committing = False
                try:
                    async with conn.transaction():
                        async with conn.cursor() as cursor:
                            result = await work(cursor)
                        committing = True
                    return result
                except psycopg.Error as error:
                    failure = failure_of(error, conn)
                    if not isinstance(failure, sql.StoreUnavailable):
                        raise failure from error
                    self._link.lost(conn, failure)
                    if committing or attempt == 2:
                        raise failure from error
        raise AssertionError("unreachable: the second attempt returns or raises")

    # -- the primitives RelationalStore runs on ------------------------------------------
    async def _queue_database(self) -> str | None:
        rows = await self._read("SELECT to_regclass('dbos.workflow_status') IS NOT NULL", ())
        if not rows or rows[0][0] is not True:
            return None  # queues never used this database (dsh_tools.dbos keeps DBOS's tables in schema dbos)
        from dsh_tools.dbos.names import system_database_url

        return system_database_url(self._dsn)

    async def _read(self, statement: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        async def work(cursor: AsyncCursor[Any]) -> list[tuple[Any, ...]]:
            await cursor.execute(_DIALECT.sql(statement).encode(), params)
            return await cursor.fetchall()

        return await self._tx(work)

    async def _write(self, statement: str, params: Sequence[object]) -> tuple[int, list[tuple[Any, ...]]]:
        async def work(cursor: AsyncCursor[Any]) -> tuple[int, list[tuple[Any, ...]]]:
            await cursor.execute(_DIALECT.sql(statement).encode(), params)
            rows = await cursor.fetchall() if cursor.description is not None else []
            return cursor.rowcount, rows

        return await self._tx(work)

    async def _write_all(
        self, statements: Sequence[Statement], batches: Sequence[tuple[str, Sequence[Sequence[object]]]] = ()
    ) -> int:
        async def work(cursor: AsyncCursor[Any]) -> int:
            changed = 0
            for statement, params in statements:
                await cursor.execute(_DIALECT.sql(statement).encode(), params)
                changed += cursor.rowcount
            for statement, rows in batches:
                await cursor.executemany(_DIALECT.sql(statement).encode(), rows)
            return changed

        return await self._tx(work)

    async def _transact(self, make: Callable[[], txn.Txn[T]]) -> T:
        async def work(cursor: AsyncCursor[Any]) -> T:
            async def execute(statement: str, params: Sequence[object]) -> txn.Answer:
                if statement == txn.LOCK:  # serialise with every writer naming the same key (the parking cap)
                    await cursor.execute(b"SELECT pg_advisory_xact_lock(hashtext(%s))", params)
                    return 0, []
                await cursor.execute(_DIALECT.sql(statement).encode(), params)
                rows = await cursor.fetchall() if cursor.description is not None else []
                return cursor.rowcount, rows

            return await txn.drive_async(make(), execute)

        return await self._tx(work)

    _ROW_MARK: ClassVar[str] = "xmin::text"
    """The row version: it changes with every write of the row (store/changes.py)."""

    _CHANGE_WINDOW: ClassVar[int] = 256
    """Replicas commit rows out of ``seq`` order: ``changes`` looks this far below the last ``seq`` again."""

    # -- the journal, through an outage --------------------------------------------------
    async def _write_rows(self, rows: Sequence[JournalRow]) -> None:
        """Write the backlog and ``rows``; while the database is away, hold them all to write once it is back."""
        async with self._journal_lock:
            if self._link.away:  # no attempt is due: do not even try (and do not copy the backlog)
                self._hold(rows)
                return
            taken = self._backlog.take(rows)
            try:
                await super()._write_rows(taken)
            except sql.StoreUnavailable:
                self._hold(taken)  # away: held, written once it is back
            except asyncio.CancelledError:
                self._hold(taken)  # the store is closing mid-write: held, so its close counts what is lost
                raise
            except BaseException:
                self._backlog.dropped += len(taken)  # failed for good: lost, and counted in health()
                raise

    def _hold(self, rows: Sequence[JournalRow]) -> None:
        first_loss = self._backlog.dropped == 0
        lost = self._backlog.hold(rows)
        if lost:
            self._last_error = f"the journal buffer is full ({self._backlog.limit}): {self._backlog.dropped} rows dropped"
            _LOG.log(logging.WARNING if first_loss else logging.DEBUG, "PostgreSQL is away and %s", self._last_error)
        if self._backlog and not self._closing and (self._flusher is None or self._flusher.done()):
            self._flusher = asyncio.get_running_loop().create_task(self._flush_when_back())

    async def _flush_when_back(self) -> None:
        """Try the held rows each time an attempt is due, until they are written (or the store closes)."""
        while self._backlog and not self._closing:
            await asyncio.sleep(max(0.01, self._link.backoff.remaining()))
            await self._write_rows(())
        if not self._backlog:
            _LOG.info("the journal rows held while PostgreSQL was away are written")

    # -- decisions ----------------------------------------------------------------------------
    async def _announce(self, agent_id: str) -> None:
        """Notify the listeners; the decision is committed already, so a failure here is logged, not raised.

        Waiters look for decisions on their own after a timeout and each time
        their listener connects again, so a lost notification costs time only.
        """
        try:
            await self._read("SELECT pg_notify(?, ?)", (CHANNEL, sql.column(agent_id)))
        except sql.StoreError as error:
            _LOG.warning("a decision was committed, but its notification was not sent: %s", safe_str(error))

    async def wait_for_decision(self, agent_id: str, timeout: float) -> None:
        """Return when a ``NOTIFY`` names ``agent_id``, a decision is already waiting, or after ``timeout``.

        While the database is away this waits for the listener to be back,
        still at most ``timeout``; it never raises for the outage (the
        caller's next read does, as ``StoreUnavailable``).
        """
        if self._closing:
            raise sql.StoreError("PostgreSQL store is closed")
        listener = self._listener
        with listener.waiting(sql.column(agent_id)) as woken, contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await listener.listening.wait()
                try:
                    if await self.decided(agent_id):
                        return
                except sql.StoreUnavailable:
                    pass  # away again: the listener wakes this waiter when it listens again
                await woken.wait()

    async def aclose(self) -> None:
        """Write what is held if the database is reachable now (one attempt), count the rest as lost, and close."""
        if self._closing:
            return
        self._closing = True
        if self._flusher is not None:
            self._flusher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._flusher
        if self._backlog:
            self._link.backoff.succeeded()  # one last attempt, now
            with contextlib.suppress(sql.StoreError):
                await self._write_rows(())
        lost = self._backlog.drop_all()
        if lost:
            self._last_error = f"{lost} journal records and session events were lost: PostgreSQL was away when the store closed"
            _LOG.warning("%s", self._last_error)
        self._closed = True
        await self._listener.close()
        await self._link.close()
