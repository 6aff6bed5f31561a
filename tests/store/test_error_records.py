"""Calls settled with an error by whoever finds them (an expiry, a recovery, a turn cut short): one shape, one record per slot."""

from __future__ import annotations

import time

from dsh_tools import thaw_json
from dsh_tools.errors import ToolAbortedError, ToolOutcomeUnknownError
from dsh_tools.store import ThreadSlot
from dsh_tools.store.error_records import slot_records
from dsh_tools.store.expiry import expired_record
from dsh_tools.store.interrupted import claim_record, unknown_record
from dsh_tools.store.thread_state import answer_from, open_slots

from test_threads_rules_expiry import Full, parked, two_step_thread


async def test_every_error_settlement_says_its_error_and_fills_its_slot_alike(store: Full) -> None:
    state = await two_step_thread(store)
    waiting = parked("p1", expires_in=0, slot=ThreadSlot("t", state.steps, 0))
    aborted = ToolAbortedError("cut short", "ABORTED_BEFORE_DISPATCH")
    records = [
        expired_record(waiting, time.time()),
        unknown_record(claim_record(waiting, owner="me"), owner="me", decided_by="ada"),
        *slot_records(state, open_slots(state), lambda name: aborted, "aborted", kind="unstarted"),
    ]
    shapes = [
        (r.outcome, thaw_json(r.content), thaw_json(r.error), r.is_error, r.lease_until, r.thread_slot is not None)
        for r in records
    ]
    assert shapes == [
        ("approval-expired", [{"type": "text", "text": 'Error: the approval of tool "write_file" expired after 0 s'}],
         {"name": "ApprovalExpiredError", "code": "APPROVAL_EXPIRED"}, True, None, True),
        ("unknown", [{"type": "text", "text": 'Error: tool "write_file" may or may not have taken effect: its process'
                      " stopped before the call settled"}],
         {"name": "ToolOutcomeUnknownError", "code": "TOOL_OUTCOME_UNKNOWN"}, True, None, True),
        *[("aborted", [{"type": "text", "text": "Error: cut short"}],
           {"name": "ToolAbortedError", "code": "ABORTED_BEFORE_DISPATCH"}, True, None, True)] * 2,
    ]
    for record in records:
        assert isinstance(record.content, tuple) and record.ended_at is not None
        assert record.thread_answer == answer_from(record.content, True)  # the slot reads what the journal says
    assert [(r.record_id, r.call_id, r.tool_name, r.idempotency_key) for r in records[2:]] == [
        ("unstarted-t-1-0", "c1", "write_file", "t:c1"), ("unstarted-t-1-1", "c2", "write_file", "t:c2"),
    ]


async def test_a_slot_settled_twice_is_one_record_whose_second_write_is_a_late_note(store: Full) -> None:
    """Two processes recovering one lapsed step at once settle its slot with the same record: the first write wins."""
    state = await two_step_thread(store)
    first = slot_records(state, (0,), ToolOutcomeUnknownError, "unknown", kind="orphan", owner="one")
    again = slot_records(state, (0,), ToolOutcomeUnknownError, "unknown", kind="orphan", owner="two")
    await store.write(first, ())
    await store.write(again, ())
    (record,) = await store.journal(call_id="c1")
    assert (record.record_id, record.owner, record.outcome) == ("orphan-t-1-0", "one", "unknown")
    assert record.late_note is not None and thaw_json(record.late_note)["owner"] == "two"  # type: ignore[index]
    read = await store.read_thread("t")
    assert read is not None and read[0].pending_calls == ("c2",) and len(read[1]) == 1  # filled once, no answer yet
