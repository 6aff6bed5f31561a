"""Connections that come back: backoff between attempts, and a PostgreSQL store's statement connection.

A database restarts, fails over to a standby, or drops a connection that sat
idle; a store that cached one connection for ever then failed every call
until the process restarted. Here a lost connection is noticed where it is
used, dropped, and replaced on the next use, and attempts to reach a
database that is away are spaced by :class:`Backoff`, so a thousand calls
during an outage cost one attempt now and then, each of them failing fast
with :class:`~dsh_tools.store.sql.StoreUnavailable` in between.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from dsh_tools.errors import safe_str
from dsh_tools.store.sql import RecordRefused, StoreError, StoreUnavailable

if TYPE_CHECKING:
    import psycopg
    from psycopg import AsyncConnection

__all__ = ["Backoff", "Link", "failure_of"]

_LOG = logging.getLogger("dsh_tools.store")

FIRST_DELAY_S: Final = 0.1
"""The wait before the first new attempt after one failed."""

MAX_DELAY_S: Final = 2.0
"""The longest wait between attempts: a database that is back is used again at most this late."""

Connect = Callable[[], Awaitable["AsyncConnection[Any]"]]
"""Opens a new connection, or raises ``StoreUnavailable`` (unreachable) or ``StoreError`` (refused for good)."""


class Backoff:
    """Waits between attempts to reach a database: doubling from :data:`FIRST_DELAY_S` up to :data:`MAX_DELAY_S`.

    Each wait is jittered (half to all of it), so replicas that lost their
    database together do not all knock again in the same instant.
    """

    __slots__ = ("_failures", "_until")

    def __init__(self) -> None:
        self._failures = 0
        self._until = 0.0

    def failed(self) -> float:
        """An attempt failed: how long to wait before the next one (also kept for :meth:`remaining`)."""
        delay = min(MAX_DELAY_S, FIRST_DELAY_S * 2.0**self._failures) * random.uniform(0.5, 1.0)
        self._failures = min(self._failures + 1, 16)
        self._until = time.monotonic() + delay
        return delay

    def succeeded(self) -> None:
        """The database answered: the next attempt, if one is needed, may be made at once."""
        self._failures = 0
        self._until = 0.0

    def remaining(self) -> float:
        """Seconds until the next attempt is due (0: now)."""
        return max(0.0, self._until - time.monotonic())


def failure_of(error: psycopg.Error, conn: AsyncConnection[Any]) -> StoreError:
    """What a driver error on ``conn`` means to a store's caller.

    A connection that is now closed was lost (``StoreUnavailable``: a later
    attempt may succeed), and so is a database that became read-only (a
    failover onto a standby); a refusal of the statement's data (a constraint,
    a value it cannot hold) is ``RecordRefused``, which the journal answers by
    writing rows alone; anything else is the database's state (``StoreError``).
    """
    import psycopg

    text = f"{type(error).__name__}: {safe_str(error)}"
    if conn.closed:
        return StoreUnavailable(f"the connection to PostgreSQL was lost: {text}")
    if isinstance(error, psycopg.errors.ReadOnlySqlTransaction):  # failed over onto a standby: writable again later
        return StoreUnavailable(f"PostgreSQL is read-only now: {text}")
    if isinstance(error, (psycopg.DataError, psycopg.IntegrityError)):
        return RecordRefused(f"PostgreSQL refused a row: {text}")
    return StoreError(f"PostgreSQL failed: {text}")


class Link:
    """A store's one statement connection: kept while it works, replaced after it is lost, attempts spaced by backoff.

    ``prepare`` runs once, on the first connection (the schema check and
    upgrade). ``restored`` is called when a connection is made again after
    one was lost, so the store can write what it buffered meanwhile.
    """

    def __init__(self, connect: Connect, prepare: Callable[[AsyncConnection[Any]], Awaitable[None]]) -> None:
        self._connect = connect
        self._prepare = prepare
        self._prepared = False
        self._conn: AsyncConnection[Any] | None = None
        self._connecting = asyncio.Lock()
        self.backoff = Backoff()
        self._why = ""
        self._connected = False  # once: only a connection that was had can be lost (a first failure is the caller's error)
        self._lost_at: float | None = None

    @property
    def away(self) -> bool:
        """Whether the database is known to be away and the next attempt is not due yet."""
        return self._conn is None and self.backoff.remaining() > 0

    async def get(self) -> AsyncConnection[Any]:
        """The working connection, a new one if it was lost; ``StoreUnavailable`` within the connect timeout if none can be had."""
        conn = self._conn
        if conn is not None and not conn.closed:
            return conn
        async with self._connecting:  # callers arriving together share one attempt
            conn = self._conn
            if conn is not None and not conn.closed:
                return conn
            wait = self.backoff.remaining()
            if wait > 0:
                raise StoreUnavailable(f"PostgreSQL is unreachable ({self._why}); the next attempt is in {wait:.1f} s")
            try:
                conn = await self._connect()
                if not self._prepared:
                    await self._prepared_on(conn)
            except StoreUnavailable as error:
                self.backoff.failed()
                self._why = safe_str(error)
                self._went_away(error)
                raise
            self.backoff.succeeded()
            self._conn = conn
            self._connected = True
            if self._lost_at is not None:
                _LOG.warning("PostgreSQL is reachable again, after %.1f s", time.monotonic() - self._lost_at)
                self._lost_at = None
            return conn

    async def _prepared_on(self, conn: AsyncConnection[Any]) -> None:
        import psycopg

        try:
            await self._prepare(conn)
        except psycopg.Error as error:
            failure = failure_of(error, conn)  # before closing it: a closed connection reads as lost
            await conn.close()
            raise failure from error
        except BaseException:
            await conn.close()
            raise
        self._prepared = True

    def lost(self, conn: AsyncConnection[Any], error: StoreError) -> None:
        """``conn`` failed and is closed: the next :meth:`get` makes a new connection."""
        if conn is self._conn:
            self._conn = None
            self._went_away(error)

    def _went_away(self, error: StoreError) -> None:
        if self._connected and self._lost_at is None:
            self._lost_at = time.monotonic()
            _LOG.warning("PostgreSQL connection lost (%s); reconnecting with backoff", safe_str(error))

    async def close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            await conn.close()
