"""Leases on running calls: a durable store knows which process runs a call, and until when.

A call whose body may have an effect nobody should repeat (an approved call,
or any call of a tool that is not idempotent) must leave a trace *before* its
body starts: if the process is killed a millisecond later, the store still
shows the call as running, owned by that process, with a lease. The process
renews all of its leases at once, one statement per heartbeat, while any is
held; once it stops, its leases lapse and its calls are *interrupted*
(``store.interrupted()``), for ``ctx.tools.recover`` or an operator to settle.

Other calls keep the journal's short window (their running record is written
with the next group commit, within ``RUNNING_FLUSH_S``): a call that may safely
run again needs no trace before it starts. A ``MemoryStore`` keeps no leases:
nothing outlives its process.
"""

from __future__ import annotations

import asyncio
import time

from dsh_tools.call_store import CallStore, LeaseStore

__all__ = ["Leases"]


class Leases:
    """One journal's leases: how long they last, and the one heartbeat that renews them while any is held."""

    __slots__ = ("_store", "owner", "seconds", "_held", "_heartbeat")

    def __init__(self, store: LeaseStore, owner: str, seconds: float) -> None:
        self._store = store
        self.owner = owner
        self.seconds = seconds
        self._held = 0
        self._heartbeat: asyncio.Task[None] | None = None

    @classmethod
    def of(cls, store: CallStore, owner: str, seconds: float) -> Leases | None:
        """The leases of ``store``, or ``None`` for a store that keeps none (a ``MemoryStore``)."""
        return cls(store, owner, seconds) if isinstance(store, LeaseStore) and store.durable else None

    def take(self) -> float:
        """A new lease for a call about to run: when it lapses unless renewed (the heartbeat starts if it is the first)."""
        self._held += 1
        if self._heartbeat is None or self._heartbeat.done():
            self._heartbeat = asyncio.get_running_loop().create_task(self._beat())
        return time.time() + self.seconds

    def release(self) -> None:
        """A leased call settled (the heartbeat stops with the last one)."""
        self._held -= 1
        if self._held <= 0 and self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None
            self._held = 0

    async def _beat(self) -> None:
        while True:
            await asyncio.sleep(self.seconds / 3)
            try:
                await self._store.renew_leases(self.owner, lease_seconds=self.seconds)
            except Exception as error:  # noqa: BLE001 - counted; the next beat tries again before the lease lapses
                note = getattr(self._store, "note_failure", None)
                if note is not None:
                    note(error)
