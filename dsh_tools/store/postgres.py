"""``PostgresStore``: parked calls and the journal in PostgreSQL, for replicas on several machines.

Built on psycopg 3 (extra ``dsh-tools[postgres]``): it ships its own type
information (``mypy --strict`` reads it with no stubs), has a native asyncio
connection, ``LISTEN``/``NOTIFY`` through ``notifies()``, and a binary wheel
that needs no libpq on the machine. (asyncpg is as fast, but untyped.)

One connection serves the store's statements, one at a time; a second one
listens on the ``dsh_decisions`` channel, so ``watch_decisions`` reacts to a
decision made on another replica as soon as it is committed. Parking past
the per-agent cap is serialised per agent with a transaction-scoped advisory
lock, so two replicas cannot both squeeze under the cap.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, Self, TypeVar

from dsh_tools.errors import safe_str
from dsh_tools.store import sql
from dsh_tools.store.base import DEFAULT_MAX_VALUE_BYTES
from dsh_tools.store.relational import RelationalStore, Statement

if TYPE_CHECKING:
    from psycopg import AsyncConnection, AsyncCursor

__all__ = ["PostgresStore"]

T = TypeVar("T")

_DIALECT: Final = sql.Dialect(serial="BIGSERIAL PRIMARY KEY", placeholder="%s")
CHANNEL: Final = "dsh_decisions"
DEFAULT_CONNECT_TIMEOUT: Final = 5.0


class PostgresStore(RelationalStore):
    """A store in a PostgreSQL database; see the module docstring. Connects on first use."""

    def __init__(
        self,
        dsn: str,
        *,
        connect_timeout: float = DEFAULT_CONNECT_TIMEOUT,
        max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES,
    ) -> None:
        super().__init__(max_value_bytes=max_value_bytes)
        if type(dsn) is not str:
            raise TypeError("PostgresStore takes a DSN string (postgresql://...)")
        self._dsn = dsn
        self._connect_timeout = connect_timeout
        self._conn: AsyncConnection[Any] | None = None
        self._listener: AsyncConnection[Any] | None = None
        self._lock: asyncio.Lock | None = None
        self._closed = False

    async def __aenter__(self) -> Self:
        await self._connection()
        return self

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
            raise sql.StoreError(
                f"cannot reach PostgreSQL within {self._connect_timeout:g} s: {type(error).__name__}: {safe_str(error)}"
            ) from None

    async def _connection(self) -> AsyncConnection[Any]:
        if self._closed:
            raise sql.StoreError("PostgreSQL store is closed")
        if self._lock is None:
            self._lock = asyncio.Lock()
        if self._conn is None:
            async with self._lock:
                if self._conn is None:
                    conn = await self._connect()
                    try:
                        await self._upgrade(conn)
                    except BaseException:
                        await conn.close()
                        raise
                    self._conn = conn
        return self._conn

    async def _upgrade(self, conn: AsyncConnection[Any]) -> None:
        async with conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(hashtext('dsh_schema'))")
            found = await (await conn.execute("SELECT to_regclass('dsh_schema') IS NOT NULL")).fetchone()
            if found is None or not found[0]:
                for statement in _DIALECT.schema():
                    await conn.execute(statement.encode())
                return
            row = await (await conn.execute("SELECT max(version) FROM dsh_schema")).fetchone()
            for statements, version in sql.upgrade_steps(row, "the database"):
                for statement in statements:
                    await conn.execute(statement.encode())
                await conn.execute("UPDATE dsh_schema SET version = %s", (version,))

    async def _tx(self, work: Callable[[AsyncCursor[Any]], Awaitable[T]]) -> T:
        """Run ``work`` in one transaction on the store's connection, one at a time."""
        import psycopg

        conn = await self._connection()
        assert self._lock is not None
        async with self._lock:
            try:
                async with conn.transaction():
                    async with conn.cursor() as cursor:
                        return await work(cursor)
            except psycopg.Error as error:
                if isinstance(error, psycopg.OperationalError):
                    raise sql.StoreError(f"PostgreSQL failed: {type(error).__name__}: {safe_str(error)}") from error
                raise sql.RecordRefused(f"PostgreSQL refused a row: {type(error).__name__}: {safe_str(error)}") from error

    # -- the primitives RelationalStore runs on ------------------------------------------
    async def _read(self, statement: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        async def work(cursor: AsyncCursor[Any]) -> list[tuple[Any, ...]]:
            await cursor.execute(_DIALECT.sql(statement).encode(), params)
            return await cursor.fetchall()

        return await self._tx(work)

    async def _write(
        self, statement: str, params: Sequence[object], *, lock: str | None = None
    ) -> tuple[int, list[tuple[Any, ...]]]:
        async def work(cursor: AsyncCursor[Any]) -> tuple[int, list[tuple[Any, ...]]]:
            if lock is not None:  # e.g. the per-agent cap: two replicas may not both squeeze under it
                await cursor.execute(b"SELECT pg_advisory_xact_lock(hashtext(%s))", (lock,))
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

    _ROW_MARK: ClassVar[str] = "xmin::text"
    """The row version: it changes with every write of the row (store/changes.py)."""

    _CHANGE_WINDOW: ClassVar[int] = 256
    """Replicas commit rows out of ``seq`` order: ``changes`` looks this far below the last ``seq`` again."""

    async def _announce(self, agent_id: str) -> None:
        await self._read("SELECT pg_notify(?, ?)", (CHANNEL, agent_id))

    async def wait_for_decision(self, agent_id: str, timeout: float) -> None:
        """Wait for a ``NOTIFY`` naming ``agent_id`` (or any decision already waiting), at most ``timeout``."""
        if self._listener is None:
            self._listener = await self._connect()
            await self._listener.set_autocommit(True)
            await self._listener.execute(f"LISTEN {CHANNEL}".encode())
        if await self.decided(agent_id):
            return
        try:
            async with asyncio.timeout(timeout):
                async for note in self._listener.notifies():
                    if note.payload == agent_id:
                        return
        except TimeoutError:
            pass

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        for conn in (self._conn, self._listener):
            if conn is not None:
                await conn.close()
        self._conn = self._listener = None
