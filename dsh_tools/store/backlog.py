"""``JournalBacklog``: the journal rows a PostgreSQL store holds in memory while its database is away.

A call never waits for the journal's database (``docs/durability.md``), so
during an outage its record is kept here and written when the store
reconnects. The backlog is bounded: a record already held is replaced by
its later version (a call that settled while held takes the place of its
``"running"`` row, so held calls never stay running), and what does not fit
is counted as dropped. It lives in the process: a process that dies during
the outage loses it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from dsh_tools.store.rows import JournalRow

__all__ = ["DEFAULT_MAX_BUFFERED", "JournalBacklog"]

DEFAULT_MAX_BUFFERED: Final = 10_000
"""How many journal records and session events a PostgreSQL store holds while its database is away."""


class JournalBacklog:
    """Held rows, records by id and events in order, at most ``limit`` of them; see the module docstring."""

    __slots__ = ("limit", "dropped", "_records", "_events")

    def __init__(self, limit: int) -> None:
        if type(limit) is not int or limit < 0:
            raise ValueError("max_buffered must be an int of at least 0")
        self.limit = limit
        self.dropped = 0
        self._records: dict[str, JournalRow] = {}
        self._events: list[JournalRow] = []

    def __len__(self) -> int:
        return len(self._records) + len(self._events)

    def hold(self, rows: Sequence[JournalRow]) -> int:
        """Keep ``rows`` to write later; how many did not fit (counted in :attr:`dropped`)."""
        lost = 0
        for row in rows:
            if row.record_id is not None and row.record_id in self._records:
                self._records[row.record_id] = row  # its later version, in its place: no room needed
            elif len(self) >= self.limit:
                lost += 1
            elif row.record_id is not None:
                self._records[row.record_id] = row
            else:
                self._events.append(row)
        self.dropped += lost
        return lost

    def take(self, rows: Sequence[JournalRow]) -> list[JournalRow]:
        """Everything held, then ``rows`` (a held record ``rows`` brings again gives way to it); the backlog is left empty."""
        if not self:
            return list(rows)
        newer = {row.record_id for row in rows if row.record_id is not None}
        taken = [row for key, row in self._records.items() if key not in newer]
        taken += self._events
        taken += rows
        self._records, self._events = {}, []
        return taken

    def drop_all(self) -> int:
        """Give up on everything held (the store is closing); how many were lost."""
        lost = len(self)
        self._records, self._events = {}, []
        self.dropped += lost
        return lost
