"""Journal rows: records and session events encoded for the database, one by one, ready to be grouped.

A row holds nothing but its encoding (and, for a call of a thread's turn, the
slot its settlement fills): a row held while the database is away
(:mod:`.backlog`) keeps no full result alive beside its bounded body.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from dsh_tools.json_values import JsonValue
from dsh_tools.call_records import CallRecord, SessionEvent, ThreadSlot
from dsh_tools.store.sql import APPEND_EVENT, UPSERT_RECORD, event_params, record_params

__all__ = ["JournalRow", "batches", "journal_rows", "record_row"]


class JournalRow(NamedTuple):
    """One journal record or session event, encoded for the database.

    It holds nothing but its encoding: a row held while the database is away
    (:mod:`.backlog`) keeps no full result alive beside its bounded body.
    """

    statement: str
    params: tuple[object, ...]
    record_id: str | None
    """The record it writes (a later version of that record replaces it); ``None`` for an event, which is appended."""
    fill: tuple[ThreadSlot, JsonValue] | None = None
    """The thread slot the record's call fills, and its answer: written in the same commit as the record."""

    @property
    def label(self) -> str:
        """What a log line calls it, read from its parameters (made only when a line is written)."""
        params = self.params
        if self.record_id is None:
            return _event_label(params[1], params[0])
        return _record_label(params[0], params[1], params[3])


def _shown(text: object) -> str:
    """Hostile text as a log line can carry it: cut, quoted, escaped to ASCII (no NUL or lone surrogate reaches a handler)."""
    return ascii(str(text)[:80])


def _record_label(record_id: object, call_id: object, tool_name: object) -> str:
    return f"journal record {_shown(record_id)} (call {_shown(call_id)}, tool {_shown(tool_name)})"


def _event_label(kind: object, agent_id: object) -> str:
    return f"session event {_shown(kind)} of agent {_shown(agent_id)}"


def journal_rows(
    records: Sequence[CallRecord], events: Sequence[SessionEvent], max_bytes: int
) -> tuple[list[JournalRow], list[tuple[str, Exception]]]:
    """The rows of ``records`` then ``events``, and, apart, what could not be encoded and why.

    Each is encoded on its own, so one that no JSON can carry (a lone
    surrogate, a number past 64 bits) is left out alone instead of failing
    the group it arrived in.
    """
    rows: list[JournalRow] = []
    refused: list[tuple[str, Exception]] = []
    for record in records:
        try:
            rows.append(record_row(record, max_bytes))
        except (TypeError, ValueError, OverflowError) as error:
            refused.append((_record_label(record.record_id, record.call_id, record.tool_name), error))
    for event in events:
        try:
            rows.append(JournalRow(APPEND_EVENT, event_params(event), None))
        except (TypeError, ValueError, OverflowError) as error:
            refused.append((_event_label(event.type, event.agent_id), error))
    return rows, refused


def record_row(record: CallRecord, max_bytes: int) -> JournalRow:
    """``record``'s row, with the thread slot its call fills (``TypeError``/``ValueError``/``OverflowError``: no JSON can carry it)."""
    slot, answer = record.thread_slot, record.thread_answer
    fill = (slot, answer) if slot is not None and answer is not None else None
    return JournalRow(UPSERT_RECORD, record_params(record, max_bytes), record.record_id, fill)


def batches(rows: Sequence[JournalRow]) -> list[tuple[str, list[tuple[object, ...]]]]:
    """``rows`` as ``executemany`` batches: one per run of the same statement, in order."""
    grouped: list[tuple[str, list[tuple[object, ...]]]] = []
    for row in rows:
        if grouped and grouped[-1][0] == row.statement:
            grouped[-1][1].append(row.params)
        else:
            grouped.append((row.statement, [row.params]))
    return grouped


