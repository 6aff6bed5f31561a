"""``DecisionListener``: one ``LISTEN`` connection per PostgreSQL store, fanned out to every waiter.

``watch_decisions`` waits for a decision on its agent's calls. Many agents
(and several watchers of one agent) share a store, and a notification can be
read from a connection only once: when each waiter read the connection
itself, a notification one of them read was gone for the rest, who slept
until their timeout. So one task reads every notification and wakes each
waiter of the agent it names.

The task also keeps the connection: when it is lost (a restart, a failover)
it reconnects with backoff and listens again, and wakes every waiter then,
because a decision may have been committed while nobody was listening.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from dsh_tools.errors import safe_str
from dsh_tools.store.reconnect import Backoff, Connect
from dsh_tools.store.sql import StoreError

if TYPE_CHECKING:
    from psycopg import AsyncConnection

__all__ = ["DecisionListener"]

_LOG = logging.getLogger("dsh_tools.store")


class DecisionListener:
    """Wakes the waiters of an agent when a ``NOTIFY`` on ``channel`` names it; see the module docstring.

    ``listening`` is set while the connection listens; ``on_listening`` is
    called each time it starts to (the database is evidently reachable).
    """

    def __init__(self, connect: Connect, channel: str, on_listening: Callable[[], None]) -> None:
        self._connect = connect
        self._listen_statement = f"LISTEN {channel}".encode()
        self._on_listening = on_listening
        self._waiters: dict[str, set[asyncio.Event]] = {}
        self._task: asyncio.Task[None] | None = None
        self.listening = asyncio.Event()

    @contextlib.contextmanager
    def waiting(self, agent_id: str) -> Iterator[asyncio.Event]:
        """An event set by each notification naming ``agent_id`` (and each time listening starts) while inside."""
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._listen())
        woken = asyncio.Event()
        self._waiters.setdefault(agent_id, set()).add(woken)
        try:
            yield woken
        finally:
            waiters = self._waiters.get(agent_id)
            if waiters is not None:
                waiters.discard(woken)
                if not waiters:
                    del self._waiters[agent_id]

    async def _listen(self) -> None:
        """Listen, wake waiters, and listen again after the connection is lost, for as long as the store is open."""
        import psycopg

        backoff = Backoff()
        lost = False
        while True:
            try:
                conn: AsyncConnection[Any] = await self._connect()
            except StoreError as error:
                lost = self._lost(lost, error)
                await asyncio.sleep(backoff.failed())
                continue
            try:
                await conn.set_autocommit(True)
                await conn.execute(self._listen_statement)
                backoff.succeeded()
                if lost:
                    _LOG.warning("listening for decisions again")
                    lost = False
                self._started()
                async for note in conn.notifies():
                    for woken in self._waiters.get(note.payload, ()):
                        woken.set()
            except psycopg.Error as error:
                lost = self._lost(lost, error)
            finally:
                self.listening.clear()
                await conn.close()
            await asyncio.sleep(backoff.failed())

    def _started(self) -> None:
        """Listening (again): whatever was decided while nobody listened is looked for by every waiter."""
        self.listening.set()
        for waiters in self._waiters.values():
            for woken in waiters:
                woken.set()
        self._on_listening()

    @staticmethod
    def _lost(already: bool, error: BaseException) -> bool:
        if not already:
            _LOG.warning("decision listener lost PostgreSQL (%s); listening again once it is back", safe_str(error))
        return True

    async def close(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
