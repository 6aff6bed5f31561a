"""``await store.changes(cursor)``: what changed since the last look, read cheaply, for a live view.

A live page (the inspector) must not re-read the journal and every parked
call for every open tab a few times a second: one 100 MB parked call, or a
thousand tabs, then costs the server its CPU. Instead one watcher per server
asks the store what changed since its last look, and fans the answer out.
What one look costs:

* memory: the records written since (the ring is kept in write order) and
  the running calls, made in memory;
* SQLite: one ``PRAGMA data_version`` while nothing was committed (SQLite
  bumps it on every commit by another connection; the store's own writes
  are counted by ``total_changes``); after a commit, the rows past the last
  ``seq``, a mark (outcome, end, progress) of the rows still running, and
  the ids of the parked calls: no row is parsed unless it changed;
* PostgreSQL: the same, without the gate, and with a window of the newest
  rows re-checked by ``xmin`` (the row version): two replicas may commit
  their rows out of ``seq`` order, so a row that appears late below the last
  ``seq`` seen is still found. (The journal does not ``NOTIFY``: a committing
  transaction that notifies holds a cluster-wide lock until its commit is
  done, which would serialise every replica's journal writes.)

A look returns at most :data:`MAX_CHANGED` records (the newest) and follows
at most :data:`MAX_TRACKED` rows; a call beyond them is shown by the next
page load, not live.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, Protocol, runtime_checkable

from pyrsistent import pmap
from pyrsistent.typing import PMap

from dsh_tools.record import Record
from dsh_tools.call_records import CallRecord

__all__ = ["MAX_CHANGED", "MAX_TRACKED", "ChangeCursor", "ChangeSource", "Mark", "StoreChanges", "diff_marks"]

MAX_CHANGED: Final = 500
"""The most changed records one look returns (the newest)."""

MAX_TRACKED: Final = 1000
"""The most rows a cursor follows (the newest): running calls, and PostgreSQL's window."""

Mark = tuple[object, ...]
"""What tells one version of a journal row from the next (its outcome and end, and the store's own mark)."""


class ChangeCursor(Record):
    """Where a look ended (opaque to the reader: it hands it back): the last row seen and the rows it follows."""

    last: int = 0
    marks: PMap[str, Mark] = pmap()
    gate: object = None


class StoreChanges(Record):
    """One look's answer: the cursor for the next look, what changed, and which parked calls wait.

    ``records`` are the journal records new or changed since the cursor given
    (none on the first look, which only places the cursor), oldest first.
    ``parked`` is the id of every undecided parked call, oldest first, or
    ``None`` when the store knows nothing changed.
    """

    cursor: ChangeCursor
    records: tuple[CallRecord, ...] = ()
    parked: tuple[str, ...] | None = None


@runtime_checkable
class ChangeSource(Protocol):
    """A store that can say what changed since a cursor (every store in ``dsh_tools.store``)."""

    async def changes(self, cursor: ChangeCursor | None = None) -> StoreChanges:
        """What changed since ``cursor``; with ``None``, a cursor at the present and nothing changed."""
        ...


def record_mark(record: CallRecord) -> Mark:
    """The mark of a record read whole (the memory store's: it has no row versions)."""
    return (record.outcome, record.ended_at, record.progress)


def diff_marks(
    seen: Mapping[str, Mark], now: Iterable[tuple[str, Mark, bool]], *, first: bool
) -> tuple[list[str], dict[str, Mark]]:
    """Which rows changed, and the marks to keep, from ``(record id, mark, keep)`` of the rows looked at.

    A row changed when its mark differs from the one ``seen`` kept (or none
    was kept); on the ``first`` look nothing has changed yet. ``keep`` says
    whether the next look must compare the row again (it is still running,
    or inside the store's window); the newest :data:`MAX_TRACKED` are kept.
    """
    changed: list[str] = []
    kept: dict[str, Mark] = {}
    for record_id, mark, keep in now:
        if not first and seen.get(record_id) != mark:
            changed.append(record_id)
        if keep:
            kept[record_id] = mark
    if len(kept) > MAX_TRACKED:
        kept = dict(list(kept.items())[-MAX_TRACKED:])
    return changed[-MAX_CHANGED:], kept
