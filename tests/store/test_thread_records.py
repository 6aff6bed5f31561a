"""A thread, its calls and the approval log as every store keeps them: what was written reads back equal.

The relational stores keep each as one JSON body written and read the one way
every stored record is (``sql.dump_record`` / ``sql.load_record``). A body
that is not what this code writes (a field missing, or the layout an earlier
build used) is a ``StoreError`` naming the field where one thread is read,
and is skipped and counted where many are listed; it never reads as defaults.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, cast

import orjson
import pytest

import dsh_tools.store.sql as sql
from dsh_tools.store import CallRecord, StoreError, ThreadSlot
from dsh_tools.store.thread_state import ThreadState, answer_from, checked_messages, slot_filled, slot_parked, turned

from store_kinds import DURABLE, Kind, corrupt, location, store_of
from test_threads_rules_expiry import Full, parked, two_step_thread

CALLS = ("c1", "c2", "c3")


async def test_a_thread_and_its_calls_read_back_as_they_were_written(store: Full) -> None:
    await store.open_thread("t")
    turn = checked_messages([{"role": "assistant", "content": "checking ✓", "tool_calls": [
        {"id": c, "type": "function", "function": {"name": "look", "arguments": '{"n": 1.5}'}} for c in CALLS
    ]}])
    lease = time.time() + 60
    state, added = await store.change_thread("t", lambda now: turned(
        now, 0, "openai-chat", "agent-1", turn, CALLS, names=("write_file", "look", "look"), owner="me", lease_until=lease,
    ))
    assert added == turn
    slots = [ThreadSlot("t", state.steps, index) for index in range(len(CALLS))]
    waiting = parked("p1", expires_in=60, slot=slots[0])
    assert await store.park(waiting, max_per_agent=10)
    content = ({"type": "text", "text": "seen"},)
    answer = answer_from(content, False, [{"type": "text", "text": "a listener's note"}])
    settled = CallRecord(
        "r-c2", "c2", "agent-1", "look", {"n": 1.5}, "ok", time.time(), content=content, ended_at=time.time(),
        idempotency_key="t:c2", fingerprint="f" * 64, thread_slot=slots[1], thread_answer=answer,
    )
    running = CallRecord(
        "r-c3", "c3", "agent-1", "look", {"n": 2}, "running", time.time(), owner="me", lease_until=lease,
        idempotency_key="t:c3", thread_slot=slots[2],
    )
    await store.write([settled, running], [])

    waits = slot_parked(state, slots[0], "p1")
    assert waits is not None
    filled = slot_filled(waits[0], slots[1], answer)
    assert filled is not None
    read = await store.read_thread("t")
    assert read == (filled[0], turn)
    assert read[0].step is not None and read[0].step.lease_until == lease and read[0].step.names == ("write_file", "look", "look")
    assert await store.get_parked("p1") == waiting
    assert await store.journal(call_id="c2") == [settled.set(thread_answer=None)]  # the answer fills the slot, not the journal
    assert await store.journal(call_id="c3") == [running]
    assert await store.open_steps("agent-1") == [filled[0]]


async def test_the_approval_log_reads_back_as_it_was_logged(store: Full) -> None:
    assert await store.park(parked("p1"), max_per_agent=10)
    decision = await store.decide("p1", "rejected", decided_by="ada ✓", message='no "quotes" \\ here')
    (logged, decided) = await store.approval_events()
    assert (decided.seq > logged.seq, decided.event, decided.approval_id, decided.agent_id, decided.tool_name) == (
        True, "decided", "p1", "agent-1", "write_file",
    )
    assert (decided.outcome, decided.decided_by, decided.message) == ("rejected", "ada ✓", decision.message)
    assert decided.at >= logged.at > 0
    assert await store.approval_events(logged.seq) == [decided]


def body_of(state: ThreadState) -> dict[str, Any]:
    """The JSON a relational store keeps for ``state`` (its id and version are columns of their own)."""
    fields: dict[str, Any] = orjson.loads(sql.dump_record(state, skip=sql.THREAD_COLUMNS))
    return fields


def store_thread(kind: Kind, where: str, body: dict[str, Any]) -> None:
    """Put ``body`` in place of thread ``t``'s, behind the store's back."""
    corrupt(kind, where, "UPDATE dsh_threads SET body = ? WHERE thread_id = ?", (orjson.dumps(body).decode(), "t"))


@pytest.mark.parametrize("kind", DURABLE)
async def test_a_stored_thread_missing_a_field_is_an_error_not_a_default(
    kind: Kind, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    where = location(kind, tmp_path, request)
    async with store_of(kind, tmp_path, request) as opened:
        store = cast(Full, opened)
        body = body_of(await two_step_thread(store))
        for field in ("count", "step"):  # read as a default, the thread would lose its messages or its open step
            store_thread(kind, where, {name: value for name, value in body.items() if name != field})
            with pytest.raises(StoreError, match=f"ThreadState does not read back: .*missing required field '{field}'"):
                await store.read_thread("t")
        store_thread(kind, where, {**body, "step": {name: value for name, value in body["step"].items() if name != "names"}})
        with pytest.raises(StoreError, match="missing required field 'names'"):
            await store.read_thread("t")
        assert await store.open_steps("agent-1") == []  # a listing skips it, and counts it
        assert store.health().unreadable_rows == 1


@pytest.mark.parametrize("kind", DURABLE)
async def test_rows_in_an_earlier_layout_are_refused_by_name(kind: Kind, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Threads and approval events as builds before this layout wrote them (camelCase keys): errors, never half-read."""
    where = location(kind, tmp_path, request)
    async with store_of(kind, tmp_path, request) as opened:
        store = cast(Full, opened)
        await two_step_thread(store)
        store_thread(kind, where, {"provider": "openai-chat", "agentId": "agent-1", "steps": 1, "step": None, "count": 1})
        with pytest.raises(StoreError, match="ThreadState does not read back: .*unexpected field 'agentId'"):
            await store.read_thread("t")
        assert await store.park(parked("p1"), max_per_agent=10)
        assert await store.park(parked("p2"), max_per_agent=10)
        event = {"event": "parked", "agentId": "agent-1", "toolName": "write_file", "outcome": None, "decidedBy": None, "message": None}
        corrupt(kind, where, "UPDATE dsh_approval_events SET body = ? WHERE approval_id = ?", (orjson.dumps(event).decode(), "p1"))
        assert [e.approval_id for e in await store.approval_events()] == ["p2"]
        health = store.health()
        assert health.unreadable_rows == 1 and "ApprovalEvent does not read back" in (health.last_error or "")
