"""Whoever settles a parked or interrupted call of a thread fills its slot: a denial, an expiry, a recovery."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path

import orjson

from dsh_tools import Agent, Context, boot
from dsh_tools.adapters import openai
from dsh_tools.store import ApprovalLog, CallRecord, CallStore, SqliteStore, ThreadSlot
from dsh_tools.store.thread_state import checked_messages, turned
from dsh_tools.threads import open_thread

from thread_support import AGENT_ID, booted, chat_call, chat_completion, store  # noqa: F401 - store is a fixture


async def test_an_expired_call_fills_its_slot_with_the_expiry(store: CallStore) -> None:
    ctx, agent = booted(store, ttl=0.2)
    thread = await (await open_thread(store, "t")).append({"role": "user", "content": "refund"})
    thread = await openai.run_chat_turn(ctx, thread, chat_completion(chat_call("c1", "refund", {"order": "9"})), agent=agent)
    assert thread.status == "waiting"
    await asyncio.sleep(0.3)
    assert (await open_thread(store, "t")).status == "waiting"  # reading the thread expires nothing
    assert await ctx.tools.pending_approvals() == []  # the first look settles it
    thread = await open_thread(store, "t")
    assert thread.status == "ready" and thread.chat_messages()[-1] == {
        "role": "tool", "tool_call_id": "c1", "content": 'Error: the approval of tool "refund" expired after 0 s',
    }
    assert [r.outcome for r in await store.journal(call_id="c1")] == ["approval-pending", "approval-expired"]


async def test_concurrent_resumes_append_the_answer_once(store: CallStore) -> None:
    ctx, agent = booted(store)
    calls = [chat_call(f"c{n}", "refund", {"order": str(n)}) for n in range(4)]
    thread = await openai.run_chat_turn(ctx, await open_thread(store, "t"), chat_completion(*calls), agent=agent)
    assert len(thread.waiting_on) == 4
    pending = await ctx.tools.pending_approvals(agent)
    await asyncio.gather(*(ctx.tools.resume(p.approval_id, "allowed-once") for p in pending))
    thread = await open_thread(store, "t")
    assert thread.status == "ready" and [m.get("tool_call_id") for m in thread.chat_messages()[1:]] == ["c0", "c1", "c2", "c3"]


async def test_a_recovered_call_fills_its_slot(tmp_path: Path) -> None:
    """A call whose process died mid-body (its lease lapsed) is settled by recover, and that settles its slot."""
    async with SqliteStore(tmp_path / "calls.db") as store:
        ctx, agent = booted(store)
        thread = await (await open_thread(store, "t")).append({"role": "user", "content": "refund"})
        (call,) = checked_messages([{"role": "assistant", "content": None, "tool_calls": [chat_call("c1", "refund", {"order": "7"})]}])
        version = thread.version
        state, _ = await store.change_thread("t", lambda now: turned(
            now, version, "openai-chat", AGENT_ID, (call,), ["c1"], names=["refund"], owner="a-dead-process",
            lease_until=time.time() - 1,
        ))
        dead = CallRecord(  # what the dead process's journal left: running, its lease lapsed
            "dead-1", "c1", AGENT_ID, "refund", {"order": "7"}, "running", time.time() - 60, owner="a-dead-process",
            lease_until=time.time() - 1, idempotency_key="t:c1", thread_slot=ThreadSlot("t", state.steps, 0),
        )
        await store.write([dead], [])
        assert (await open_thread(store, "t")).status == "running"
        (result,) = await ctx.tools.recover(agent)
        assert result.outcome == "unknown"
        thread = await open_thread(store, "t")
        assert thread.status == "ready" and thread.chat_messages()[-1] == {
            "role": "tool", "tool_call_id": "c1",
            "content": 'Error: tool "refund" may or may not have taken effect: its process stopped before the call settled',
        }


async def test_recovering_a_lapsed_claim_logs_it_settled_and_fills_its_slot(store: CallStore) -> None:
    """A decided call whose claimant died before its body's record: recover settles it, in its slot and in the log."""
    ctx, agent = booted(store)
    thread = await (await open_thread(store, "t")).append({"role": "user", "content": "refund"})
    thread = await openai.run_chat_turn(ctx, thread, chat_completion(chat_call("c1", "refund", {"order": "9"})), agent=agent)
    (approval_id,) = thread.waiting_on
    await store.decide(approval_id, "allowed-once")
    await store.claim(approval_id, owner="a-dead-process", lease_seconds=-1)
    (result,) = await ctx.tools.recover(agent)
    assert result.outcome == "unknown"
    assert isinstance(store, ApprovalLog)
    assert [e.event for e in await store.approval_events() if e.approval_id == approval_id] == ["parked", "decided", "settled"]
    assert await store.interrupted() == [] and await ctx.tools.recover(agent) == []
    assert (await open_thread(store, "t")).status == "ready"


async def _code_thread_waiting(store: CallStore) -> tuple[Context, Agent, str]:
    """A Code Mode thread whose program's ``refund`` parked: its ``run_code`` call r1 waits in the slot."""
    from dsh_tools.code_mode.runtime import CodeRunRequest, CodeRunResult
    from dsh_tools.testing import Bindings, ScriptedCodeRuntime

    from thread_support import refund

    async def program(tools: Bindings, request: CodeRunRequest) -> CodeRunResult:
        done = await tools["refund"]({"order": "5"})
        return CodeRunResult(logs=(), value={"done": done})

    ctx = boot(mode="code", code_runtime=ScriptedCodeRuntime({"refund five": program}), store=store, approval="defer")
    ctx.tools.register(refund)
    agent = Agent(ctx, name="coder", id="coder-1")
    thread = await openai.run_chat_turn(
        ctx, await open_thread(store, "code"), chat_completion(chat_call("r1", "run_code", {"code": "refund five"})), agent=agent
    )
    (pending,) = await ctx.tools.pending_approvals(agent)
    assert (thread.status, thread.pending_calls, thread.waiting_on) == ("waiting", ("r1",), (pending.approval_id,))
    assert pending.tool_name == "refund"  # the program's sub-call is what waits; the thread's call is run_code
    return ctx, agent, pending.approval_id


async def test_a_code_mode_program_that_parks_waits_in_its_slot_and_its_rerun_fills_it(store: CallStore) -> None:
    ctx, _, approval_id = await _code_thread_waiting(store)
    result = await ctx.tools.resume(approval_id, "allowed-once")
    assert result.outcome == "ok"
    thread = await open_thread(store, "code")
    (answer,) = thread.chat_messages()[1:]
    assert answer.get("tool_call_id") == "r1" and str(answer.get("content")).endswith("refunded 5 (code:r1:1)\"}")


async def test_a_tampered_program_fills_its_slot_with_record_tampered_and_the_thread_goes_on(tmp_path: Path) -> None:
    """The program's code rewritten in the database: neither the sub-call nor the program runs, and the run_code
    call the thread waits on settles ``RECORD_TAMPERED`` (not only the sub-call, which would leave it waiting)."""
    async with SqliteStore(tmp_path / "calls.db") as store:
        ctx, agent, approval_id = await _code_thread_waiting(store)
        with sqlite3.connect(tmp_path / "calls.db") as db:
            (text,) = db.execute("SELECT program FROM dsh_parked WHERE approval_id = ?", (approval_id,)).fetchone()
            program = {**orjson.loads(text), "code": "refund everything"}
            db.execute("UPDATE dsh_parked SET program = ? WHERE approval_id = ?", (orjson.dumps(program).decode(), approval_id))
        result = await ctx.tools.resume(approval_id, "allowed-once")
        assert (result.call_id, result.error and result.error.code) == ("r1", "RECORD_TAMPERED")
        thread = await open_thread(store, "code")
        assert (thread.status, thread.pending_calls, thread.waiting_on) == ("ready", (), ())
        (answer,) = thread.chat_messages()[1:]
        assert answer.get("tool_call_id") == "r1" and "does not match its digest" in str(answer.get("content"))
        journal = [(record.tool_name, record.error) for record in await store.journal(agent_id=agent.id)]
        tampered = {"name": "RecordTamperedError", "code": "RECORD_TAMPERED"}
        assert journal[2:] == [("refund", tampered), ("run_code", tampered)]  # both settled, neither ran
        await ctx.dispose()
