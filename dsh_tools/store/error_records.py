"""Calls settled with an error by whoever finds them, not by their tool: one record shape for all of them.

An approval that expired (:mod:`.expiry`), a call whose process stopped
(:mod:`.interrupted`, ``recover``), a call of a turn that was cut short
before it ran, a call of a lapsed step that no record names: each is settled
by writing its journal record, with the error as a result carries it
(``Error: <message>`` content, the error's class and code) and, for a call
of a thread's turn, the same content as its slot's answer, so the commit that
writes the record fills the slot. :func:`error_settled` is that record;
:func:`slot_records` settles the open step's slots a group at a time, in one
commit, so the step's answer is appended once, with the last of them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

from dsh_tools.errors import HarnessError
from dsh_tools.execution import derived_idempotency_key
from dsh_tools.outcome import RecordOutcome
from dsh_tools.pipeline.outcomes import exception_result
from dsh_tools.call_records import CallRecord, ParkedCall, ThreadSlot
from dsh_tools.store.thread_state import ThreadState, answer_of

__all__ = ["error_settled", "parked_record", "slot_records"]


def error_settled(record: CallRecord, error: HarnessError, outcome: RecordOutcome, *, ended_at: float | None = None) -> CallRecord:
    """``record`` settled as ``outcome`` by ``error`` (at ``ended_at``, else now), filling its thread slot if it has one.

    The content, error and answer are the ones the pipeline gives a call
    that raised ``error`` (``exception_result``), so both read the same.
    """
    result = exception_result(record.call_id, error)
    info = result.error
    return record.set(
        outcome=outcome,
        is_error=True,
        content=result.content,
        value=None,
        error=None if info is None else {"name": info.name, "code": info.code},
        ended_at=time.time() if ended_at is None else ended_at,
        lease_until=None,
        thread_answer=answer_of(result) if record.thread_slot is not None else None,
    )


def parked_record(parked: ParkedCall, record_id: str, **fields: Any) -> CallRecord:
    """A journal record ``record_id`` of the parked call (``"running"``; ``fields`` add to it), linked to it and its slot."""
    return CallRecord(
        record_id, parked.call_id, parked.agent_id, parked.tool_name, parked.arguments, "running", parked.created_at,
        parent_call_id=parked.parent_call_id, approval_id=parked.approval_id, idempotency_key=parked.idempotency_key,
        thread_slot=parked.thread_slot, **fields,
    )


def slot_records(
    state: ThreadState,
    indexes: Iterable[int],
    error_of: Callable[[str], HarnessError],
    outcome: RecordOutcome,
    *,
    kind: str,
    owner: str | None = None,
) -> list[CallRecord]:
    """The records that settle the open step's slots ``indexes`` with ``error_of(tool name)``, to be written in one commit.

    Each is record ``<kind>-<thread>-<step>-<index>``, so a second settlement
    of the same slot (two processes recovering at once) is the same record,
    and its later write a late note, never a second outcome.
    """
    step = state.step
    if step is None:
        return []
    now = time.time()
    records = []
    for index in indexes:
        call_id, name = step.call_ids[index], step.names[index]
        running = CallRecord(
            f"{kind}-{state.thread_id}-{step.number}-{index}", call_id, state.agent_id, name, {}, "running", now,
            idempotency_key=derived_idempotency_key(state.thread_id, call_id), owner=owner,
            thread_slot=ThreadSlot(state.thread_id, step.number, index),
        )
        records.append(error_settled(running, error_of(name), outcome, ended_at=now))
    return records
