"""Threads, remembered rules and the approval log, for both relational stores.

A mixin of :class:`~dsh_tools.store.relational.RelationalStore`: its
operations are the read-then-write transactions of :mod:`.txn` (one logic
for SQLite and PostgreSQL) and a few plain queries. The rules of what a
thread may become live in :mod:`.thread_state`; this only reads and writes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

import dsh_tools.store.sql as sql
import dsh_tools.store.txn as txn
from dsh_tools.json_values import FrozenJson
from dsh_tools.store.base import storable_id
from dsh_tools.call_records import ApprovalEvent, ApprovalRule
from dsh_tools.store.thread_state import Change, ThreadState, check_thread_id
from dsh_tools.tool_types import describe_value

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["RelationalThreads", "ThreadSnapshot"]

T = TypeVar("T")

ThreadSnapshot = tuple[ThreadState, tuple[FrozenJson, ...]]
"""A thread as read: its state and its messages."""


class RelationalThreads:
    """The mixin; the host class provides ``_read``, ``_write`` and ``_transact``."""

    __slots__ = ()

    if TYPE_CHECKING:

        async def _read(self, statement: str, params: Sequence[object]) -> list[tuple[Any, ...]]: ...
        async def _write(self, statement: str, params: Sequence[object]) -> tuple[int, list[tuple[Any, ...]]]: ...
        async def _transact(self, make: Callable[[], txn.Txn[T]]) -> T: ...
        def note_unreadable(self, what: str, error: BaseException) -> None: ...

    async def _reads(self, made: txn.Txn[T]) -> T:
        """Run a transaction of reads statement by statement (no write lock; :func:`txn.thread_read` is consistent so)."""

        async def execute(statement: str, params: Sequence[object]) -> txn.Answer:
            rows = await self._read(statement, params)
            return len(rows), rows

        return await txn.drive_async(made, execute)

    # -- threads ----------------------------------------------------------------------------
    async def open_thread(self, thread_id: str) -> ThreadSnapshot:
        """The thread ``thread_id``, created empty on first open (two processes opening a new id get one thread)."""
        check_thread_id(thread_id)
        found = await self._reads(txn.thread_read(thread_id))
        if found is None:
            await self._transact(lambda: txn.thread_create(thread_id))
            found = await self._reads(txn.thread_read(thread_id))
        if found is None:
            raise sql.StoreError(f"thread {thread_id!r} was created but does not read back")
        return found

    async def read_thread(self, thread_id: str) -> ThreadSnapshot | None:
        """The thread ``thread_id`` as it is now, or ``None`` if the store has none (never opened, or pruned)."""
        check_thread_id(thread_id)
        return await self._reads(txn.thread_read(thread_id))

    async def change_thread(self, thread_id: str, apply: Callable[[ThreadState], Change]) -> Change:
        """Atomically apply ``apply`` to the thread (``KeyError``: none; what ``apply`` raises: nothing written)."""
        check_thread_id(thread_id)
        return await self._transact(lambda: txn.thread_change(thread_id, apply))

    async def open_steps(self, agent_id: str) -> list[ThreadState]:
        """``agent_id``'s threads with an open step (few: a step is open while its calls run or wait)."""
        found = []
        for thread_id, version, body in await self._read(
            "SELECT thread_id, version, body FROM dsh_threads WHERE status <> 'ready' ORDER BY updated_at", ()
        ):
            try:
                state = sql.thread_from_row(thread_id, version, body)
            except sql.UNREADABLE as error:
                self.note_unreadable("thread", error)
                continue
            if state.agent_id == agent_id:
                found.append(state)
        return found

    # -- rules --------------------------------------------------------------------------------
    async def rules(self, agent_id: str | None = None) -> list[ApprovalRule]:
        """The remembered rules, oldest first: every agent's, or ``agent_id``'s."""
        if agent_id is not None and type(agent_id) is not str:
            raise TypeError(f"rules(agent_id=...) takes a str or None, got {describe_value(agent_id)}")
        if agent_id is None:
            rows = await self._read("SELECT body FROM dsh_rules ORDER BY created_at", ())
        else:
            rows = await self._read("SELECT body FROM dsh_rules WHERE agent_id = ? ORDER BY created_at", (sql.column(agent_id),))
        found = [rule for (body,) in rows if (rule := self._rule(body)) is not None]
        return found if agent_id is None else [rule for rule in found if rule.agent_id == agent_id]

    def _rule(self, body: str | bytes) -> ApprovalRule | None:
        try:
            return sql.load_record(ApprovalRule, body)
        except sql.UNREADABLE as error:
            self.note_unreadable("rule", error)
            return None

    async def rule_for(self, agent_id: str, tool_name: str, fingerprint: str) -> ApprovalRule | None:
        """The rule that decides ``agent_id``'s calls of ``tool_name`` as it is now (``fingerprint``), if one was remembered."""
        rows = await self._read(
            "SELECT body FROM dsh_rules WHERE agent_id = ? AND tool_name = ? ORDER BY created_at DESC",
            (sql.column(agent_id), sql.column(tool_name)),
        )
        for (body,) in rows:
            rule = self._rule(body)
            if rule is not None and (rule.agent_id, rule.tool_name, rule.fingerprint) == (agent_id, tool_name, fingerprint):
                return rule
        return None

    async def forget_rule(self, rule_id: str) -> None:
        """Remove one rule; ``KeyError`` if the store has none with that id."""
        if not storable_id(rule_id):
            raise KeyError(f"no rule {describe_value(rule_id)}")
        changed, _ = await self._write("DELETE FROM dsh_rules WHERE rule_id = ?", (rule_id,))
        if changed != 1:
            raise KeyError(f"no rule {rule_id!r}")

    # -- the approval log ---------------------------------------------------------------------
    async def approval_events(self, after: int = 0, limit: int = 1000) -> list[ApprovalEvent]:
        """The parked, decided and settled events logged after ``after`` (a ``seq``), oldest first."""
        rows = await self._read(
            "SELECT seq, approval_id, at, body FROM dsh_approval_events WHERE seq > ? ORDER BY seq LIMIT ?", (after, limit)
        )
        events = []
        for seq, approval_id, at, body in rows:
            try:
                events.append(sql.load_record(ApprovalEvent, body, seq=int(seq), approval_id=approval_id, at=float(at)))
            except sql.UNREADABLE as error:
                self.note_unreadable("approval event", error)
        return events
