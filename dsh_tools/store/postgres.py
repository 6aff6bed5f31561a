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
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Final, Self, TypeVar

from dsh_tools.approval import ApprovalVerdict
from dsh_tools.errors import safe_str
from dsh_tools.json_values import JsonValue, dumps
from dsh_tools.outcome import RecordOutcome
from dsh_tools.store import sql
from dsh_tools.store.base import DEFAULT_MAX_VALUE_BYTES, StoreBase, check_decision, check_query
from dsh_tools.store.records import ApprovalDecision, CallRecord, ParkedCall, SessionEvent

if TYPE_CHECKING:
    from psycopg import AsyncConnection, AsyncCursor

__all__ = ["PostgresStore"]

T = TypeVar("T")

_DIALECT: Final = sql.Dialect(serial="BIGSERIAL PRIMARY KEY", placeholder="%s")
CHANNEL: Final = "dsh_decisions"
DEFAULT_CONNECT_TIMEOUT: Final = 5.0


class PostgresStore(StoreBase):
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

    @property
    def durable(self) -> bool:
        return True

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
            version = row[0] if row is not None else None
            if type(version) is not int:
                raise sql.StoreError("the database has a dsh_schema table without a version")
            if version > sql.SCHEMA_VERSION:
                raise sql.StoreError(
                    f"the database was written by a newer dsh-tools (schema version {version}; "
                    f"this one reads up to {sql.SCHEMA_VERSION}): upgrade dsh-tools"
                )
            for step in range(version, sql.SCHEMA_VERSION):
                for statement in sql.MIGRATIONS[step]:
                    await conn.execute(statement.encode())
                await conn.execute("UPDATE dsh_schema SET version = %s", (step + 1,))

    async def _tx(self, work: Callable[[AsyncCursor[Any]], Awaitable[T]]) -> T:
        """Run ``work`` in one transaction on the store's connection, one at a time."""
        conn = await self._connection()
        assert self._lock is not None
        async with self._lock:
            async with conn.transaction():
                async with conn.cursor() as cursor:
                    return await work(cursor)

    async def _rows(self, statement: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        async def work(cursor: AsyncCursor[Any]) -> list[tuple[Any, ...]]:
            await cursor.execute(_DIALECT.sql(statement).encode(), params)
            return await cursor.fetchall()

        return await self._tx(work)

    async def _count(self, statement: str, params: Sequence[object]) -> int:
        async def work(cursor: AsyncCursor[Any]) -> int:
            await cursor.execute(_DIALECT.sql(statement).encode(), params)
            return cursor.rowcount

        return await self._tx(work)

    # -- parked calls -----------------------------------------------------------
    async def park(self, call: ParkedCall, *, max_per_agent: int) -> bool:
        async def work(cursor: AsyncCursor[Any]) -> bool:
            await cursor.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (call.agent_id,))
            await cursor.execute(_DIALECT.sql(sql.PARK).encode(), sql.park_params(call, max_per_agent))
            return cursor.rowcount == 1

        return await self._tx(work)

    async def parked(self, *, agent_id: str | None = None) -> list[ParkedCall]:
        params: tuple[str, ...] = ()
        if agent_id is None:
            query = "state = 'parked'"
        else:
            query, params = "agent_id = ? AND state IN ('parked', 'decided')", (agent_id,)
        rows = await self._rows(f"SELECT {sql.PARKED_COLUMNS} FROM dsh_parked WHERE {query} ORDER BY created_at", params)
        return [sql.parked_from_row(row) for row in rows]

    async def get_parked(self, approval_id: str) -> ParkedCall | None:
        if type(approval_id) is not str:
            return None
        rows = await self._rows(f"SELECT {sql.PARKED_COLUMNS} FROM dsh_parked WHERE approval_id = ?", (approval_id,))
        return sql.parked_from_row(rows[0]) if rows else None

    async def set_program(self, approval_id: str, program: JsonValue) -> bool:
        return await self._count(sql.SET_PROGRAM, (dumps(program).decode(), approval_id)) == 1

    async def decide(
        self,
        approval_id: str,
        outcome: ApprovalVerdict,
        *,
        arguments: JsonValue | None = None,
        decided_by: str | None = None,
    ) -> ApprovalDecision:
        decision = check_decision(approval_id, outcome, arguments, decided_by)

        async def work(cursor: AsyncCursor[Any]) -> int:
            params = (sql.dump_record(decision), decision.decided_at, approval_id)
            await cursor.execute(_DIALECT.sql(sql.DECIDE + " RETURNING agent_id").encode(), params)
            row = await cursor.fetchone()
            if row is None:
                return 0
            await cursor.execute("SELECT pg_notify(%s, %s)", (CHANNEL, row[0]))
            return 1

        if await self._tx(work) != 1:
            raise KeyError(f"no undecided parked call {approval_id!r}")
        return decision

    async def decided(self, agent_id: str) -> list[ParkedCall]:
        statement = f"SELECT {sql.PARKED_COLUMNS} FROM dsh_parked WHERE agent_id = ? AND state = 'decided' ORDER BY decided_at"
        return [sql.parked_from_row(row) for row in await self._rows(statement, (agent_id,))]

    async def claim(self, approval_id: str, *, owner: str, lease_seconds: float) -> ParkedCall:
        if type(approval_id) is not str:
            raise KeyError(f"no parked call {approval_id!r}")
        rows = await self._rows(sql.CLAIM, (owner, time.time() + lease_seconds, approval_id))
        if not rows:
            raise KeyError(f"parked call {approval_id!r} is not waiting to run (unknown, undecided, or taken)")
        return sql.parked_from_row(rows[0])

    async def renew(self, approval_id: str, *, owner: str, lease_seconds: float) -> bool:
        now = time.time()
        return await self._count(sql.RENEW, (now + lease_seconds, approval_id, owner, now)) == 1

    async def finish(self, approval_id: str, *, owner: str) -> None:
        await self._count(sql.FINISH, (approval_id, owner))

    async def interrupted(self) -> list[ParkedCall]:
        statement = (
            f"SELECT {sql.PARKED_COLUMNS} FROM dsh_parked WHERE state = 'interrupted'"
            " OR (state = 'claimed' AND lease_until < ?) ORDER BY created_at"
        )
        return [sql.parked_from_row(row) for row in await self._rows(statement, (time.time(),))]

    def forget_agent(self, agent_id: str) -> None:
        """Durable: an agent's parked calls outlive its disposal."""

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

    # -- the journal --------------------------------------------------------------
    async def write(self, records: Sequence[CallRecord], events: Sequence[SessionEvent]) -> None:
        rows = [sql.record_params(record, self.max_value_bytes) for record in records]
        event_rows = [sql.event_params(event) for event in events]

        async def work(cursor: AsyncCursor[Any]) -> None:
            if rows:
                await cursor.executemany(_DIALECT.sql(sql.UPSERT_RECORD).encode(), rows)
            if event_rows:
                await cursor.executemany(_DIALECT.sql(sql.APPEND_EVENT).encode(), event_rows)

        await self._tx(work)

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
        rows = await self._rows(statement, params)
        return [sql.load_record(CallRecord, row[0]) for row in reversed(rows)]

    async def session_events(self, agent_id: str) -> list[SessionEvent]:
        statement = "SELECT agent_id, type, at, data FROM dsh_events WHERE agent_id = ? ORDER BY seq"
        return [sql.event_from_row(row) for row in await self._rows(statement, (agent_id,))]

    async def prune(self, *, before: float) -> int:
        async def work(cursor: AsyncCursor[Any]) -> int:
            gone = 0
            for statement in (
                "DELETE FROM dsh_journal WHERE ended_at < %s",
                "DELETE FROM dsh_parked WHERE state = 'done' AND created_at < %s",
                "DELETE FROM dsh_events WHERE at < %s",
            ):
                await cursor.execute(statement.encode(), (before,))
                gone += cursor.rowcount
            return gone

        return await self._tx(work)

    async def aclose(self) -> None:
        if self._closed:
            return
        self._closed = True
        for conn in (self._conn, self._listener):
            if conn is not None:
                await conn.close()
        self._conn = self._listener = None
