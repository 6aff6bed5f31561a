"""Every store alike: threads, remembered rules, the approval log, expiry (and its race with a decision), the v2 -> v3 upgrade."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from pathlib import Path
from typing import Protocol

import pytest

import dsh_tools.store.sql as sql
from dsh_tools.json_values import FrozenJson
from dsh_tools.store import (
    SCHEMA_VERSION,
    ApprovalLog,
    CallRecord,
    CallStore,
    MemoryStore,
    ParkedCall,
    PostgresStore,
    RuleStore,
    SqliteStore,
    ThreadSlot,
    ThreadStore,
)
from dsh_tools.store.thread_state import ThreadState, answer_from, appended, checked_messages, turned


class Full(CallStore, ThreadStore, RuleStore, ApprovalLog, Protocol):
    """What every bundled store is: the base protocol and every optional one."""


def parked(approval_id: str, *, expires_in: float | None = None, slot: ThreadSlot | None = None) -> ParkedCall:
    now = time.time()
    return ParkedCall(
        approval_id, "agent-1", "writer", f"call-{approval_id}", "write_file", {"path": "a"}, "Write a file.", {},
        "f" * 64, now, expires_at=None if expires_in is None else now + expires_in, thread_slot=slot,
    )


def messages(*texts: str) -> tuple[FrozenJson, ...]:
    return checked_messages([{"role": "user", "content": text} for text in texts])


async def two_step_thread(store: Full, thread_id: str = "t") -> ThreadState:
    """A thread whose open step has two calls (c1, c2): what a turn commits before its calls run."""
    state, _ = await store.open_thread(thread_id)
    turn = checked_messages([{"role": "assistant", "content": None, "tool_calls": [
        {"id": c, "type": "function", "function": {"name": "write_file", "arguments": "{}"}} for c in ("c1", "c2")
    ]}])
    changed, _ = await store.change_thread(
        thread_id, lambda now: turned(now, state.version, "openai-chat", "agent-1", turn, ["c1", "c2"])
    )
    assert isinstance(changed, ThreadState)
    return changed


def settled(call_id: str, slot: ThreadSlot, text: str) -> CallRecord:
    content = ({"type": "text", "text": text},)
    return CallRecord(
        f"r-{call_id}", call_id, "agent-1", "write_file", {}, "ok", time.time(), content=content, ended_at=time.time(),
        thread_slot=slot, thread_answer=answer_from(content, False),
    )


async def test_a_thread_is_created_once_and_appends_are_checked_against_its_version(store: Full) -> None:
    first, again = await asyncio.gather(store.open_thread("t"), store.open_thread("t"))
    assert first == again and first[0].version == 0
    state, added = await store.change_thread("t", lambda now: appended(now, 0, messages("a", "b")))
    assert (state.version, state.count, added) == (1, 2, messages("a", "b"))
    with pytest.raises(Exception, match="is at version 1, not 0"):
        await store.change_thread("t", lambda now: appended(now, 0, messages("c")))
    read = await store.read_thread("t")
    assert read is not None and read[1] == messages("a", "b")
    assert await store.read_thread("missing") is None


async def test_the_settling_commit_fills_the_slot_and_the_last_one_appends_the_answer_once(store: Full) -> None:
    state = await two_step_thread(store)
    second = ThreadSlot("t", state.steps, 1)
    await store.write([settled("c2", second, "two")], [])
    await store.write([settled("c2", second, "a late second settlement")], [])  # the first one wins
    middle = await store.read_thread("t")
    assert middle is not None and (middle[0].status, middle[0].pending_calls, len(middle[1])) == ("running", ("c1",), 1)
    await store.write([settled("c1", ThreadSlot("t", state.steps, 0), "one")], [])
    done = await store.read_thread("t")
    assert done is not None and done[0].status == "ready"
    assert [m.get("content") for m in done[1][1:]] == ["one", "two"]  # type: ignore[union-attr]
    (record,) = await store.journal(call_id="c1")
    assert record.thread_slot == ThreadSlot("t", state.steps, 0) and record.thread_answer is None  # the answer is not kept
    await store.write([settled("c9", ThreadSlot("gone", 1, 0), "no such thread")], [])  # a slot of no thread: the record only
    assert len(await store.journal(call_id="c9")) == 1


async def test_a_park_marks_its_slot_waiting_and_the_log_tells_parked_decided_settled(store: Full) -> None:
    state = await two_step_thread(store)
    assert await store.park(parked("p1", slot=ThreadSlot("t", state.steps, 0)), max_per_agent=10)
    assert await store.park(parked("p2", slot=ThreadSlot("t", state.steps, 1)), max_per_agent=10)
    read = await store.read_thread("t")
    assert read is not None and (read[0].status, read[0].waiting_on) == ("waiting", ("p1", "p2"))
    decision = await store.decide("p1", "rejected", decided_by="ada", message="no", remember="agent")
    claimed = await store.claim("p1", owner="me", lease_seconds=30)
    assert claimed.decision == decision
    await store.finish("p1", owner="me", outcome="approval-rejected")
    events = [e.wire() for e in await store.approval_events()]
    for event in events:
        event.pop("at")
    assert events == [
        {"event": "parked", "approvalId": "p1", "agentId": "agent-1", "toolName": "write_file"},
        {"event": "parked", "approvalId": "p2", "agentId": "agent-1", "toolName": "write_file"},
        {"event": "decided", "approvalId": "p1", "agentId": "agent-1", "toolName": "write_file", "outcome": "rejected",
         "decidedBy": "ada", "message": "no"},
        {"event": "settled", "approvalId": "p1", "agentId": "agent-1", "toolName": "write_file", "outcome": "approval-rejected"},
    ]
    (rule,) = await store.rules()
    assert (rule.rule_id, rule.outcome, rule.message, rule.fingerprint) == (decision.rule_id, "rejected", "no", "f" * 64)
    assert await store.rule_for("agent-1", "write_file", "f" * 64) == rule
    assert await store.rule_for("agent-1", "write_file", "0" * 64) is None
    after = (await store.approval_events())[1].seq
    assert [e.event for e in await store.approval_events(after)] == ["decided", "settled"]


async def test_an_expired_call_is_settled_by_the_first_look_and_journal_reads_do_not(store: Full) -> None:
    state = await two_step_thread(store)
    assert await store.park(parked("p1", expires_in=0.1, slot=ThreadSlot("t", state.steps, 0)), max_per_agent=10)
    assert await store.park(parked("p2", expires_in=60), max_per_agent=10)
    await asyncio.sleep(0.2)
    assert [r.outcome for r in await store.journal()] == []  # a journal read expires nothing
    assert [p.approval_id for p in await store.parked()] == ["p2"]  # the listing settles p1
    (record,) = await store.journal(outcome="approval-expired")
    assert (record.approval_id, record.call_id, record.content) == (
        "p1", "call-p1", ({"type": "text", "text": 'Error: the approval of tool "write_file" expired after 0 s'},),
    )
    found = await store.get_parked("p1")
    assert found is not None and found.state == "expired"
    with pytest.raises(KeyError):
        await store.decide("p1", "allowed-once")
    read = await store.read_thread("t")
    assert read is not None and read[0].pending_calls == ("c2",)  # its slot is filled with the expiry
    assert [e.event for e in await store.approval_events()][-1] == "settled"


async def test_prune_reaches_idle_threads_events_and_expired_calls(store: Full) -> None:
    await store.open_thread("idle")
    await two_step_thread(store, "busy")
    assert await store.park(parked("p1", expires_in=0.01), max_per_agent=10)
    await asyncio.sleep(0.05)
    await store.parked()
    assert await store.prune(before=time.time() + 1) > 0
    assert await store.read_thread("idle") is None
    assert await store.read_thread("busy") is not None  # a step still open is kept
    assert await store.get_parked("p1") is None and await store.approval_events() == []


async def race(decider: Full, expirer: Full, approval_id: str) -> tuple[bool, int]:
    """Decide and expire one call at the same moment; (whether the decision won, how many the expiry settled)."""

    async def decide() -> bool:
        try:
            await decider.decide(approval_id, "allowed-once")
            return True
        except KeyError:
            return False

    decided, expired = await asyncio.gather(decide(), expirer.expire(approval_id))
    return decided, expired


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_an_expiry_racing_a_decision_exactly_one_wins(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    """Two connections (as two processes would have) decide and expire calls right at their expiry: never both, never neither."""
    if kind == "sqlite":
        a: Full = SqliteStore(tmp_path / "calls.db")
        b: Full = SqliteStore(tmp_path / "calls.db")
    else:
        dsn = request.getfixturevalue("fresh_postgres")
        a, b = PostgresStore(dsn), PostgresStore(dsn)
    async with a, b:
        wins = {"decided": 0, "expired": 0}
        for n in range(40):
            call = parked(f"p{n}", expires_in=0.05)
            assert await a.park(call, max_per_agent=100)
            assert call.expires_at is not None
            await asyncio.sleep(max(0.0, call.expires_at - time.time() - 0.02 + (n % 9) * 0.005))  # around its expiry
            decided, _ = await race(a, b, f"p{n}")
            # A decision that lost settles the expiry itself; one that won leaves nothing for the expiry to match.
            state = (await a.get_parked(f"p{n}")).state  # type: ignore[union-attr]
            assert state == ("decided" if decided else "expired"), f"p{n}: decided={decided}, state={state}"
            expired = [r for r in await a.journal(outcome="approval-expired", limit=1000) if r.approval_id == f"p{n}"]
            assert len(expired) == (0 if decided else 1)
            wins["decided" if decided else "expired"] += 1
        records = await a.journal(outcome="approval-expired", limit=1000)
        assert len(records) == wins["expired"]  # one settlement per expired call, none for a decided one
        assert min(wins.values()) > 0, wins  # the moments straddled the expiry: both sides won some


def test_a_version_2_file_is_upgraded_to_threads_rules_and_the_log(tmp_path: Path) -> None:
    path = tmp_path / "calls.db"
    dialect = sql.Dialect(serial="INTEGER PRIMARY KEY AUTOINCREMENT", placeholder="?")
    with sqlite3.connect(path) as db:  # a file as the previous release wrote it
        for statement in [*dialect._first(), *sql.MIGRATIONS[1]]:
            db.execute(statement)
        db.execute("INSERT INTO dsh_schema (version) VALUES (2)")
        db.execute(
            "INSERT INTO dsh_journal (record_id, call_id, agent_id, tool_name, outcome, is_error, started_at, body)"
            " VALUES ('r1', 'c1', 'a', 't', 'ok', 0, 1, ?)",
            (sql.dump_record(CallRecord("r1", "c1", "a", "t", {}, "ok", 1.0)),),
        )

    async def use() -> None:
        async with SqliteStore(path) as store:
            assert [r.call_id for r in await store.journal()] == ["c1"]
            await store.open_thread("t")
            assert await store.rules() == []

    asyncio.run(use())
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT version FROM dsh_schema").fetchall() == [(SCHEMA_VERSION,)]


async def test_memory_store_keeps_the_same_rules(tmp_path: Path) -> None:
    """The memory store's expiry, rules and threads are the same code paths' rules (a smoke test of the one fixture-less case)."""
    store = MemoryStore()
    assert await store.park(parked("p1", expires_in=0), max_per_agent=1)
    assert await store.expire() == 1 and await store.expire() == 0


async def test_a_version_2_postgres_database_is_upgraded_in_place(fresh_postgres: str) -> None:
    import psycopg

    dialect = sql.Dialect(serial="BIGSERIAL PRIMARY KEY", placeholder="%s")
    with psycopg.connect(fresh_postgres, autocommit=True) as db:  # the tables as the previous release made them
        for statement in [*dialect._first(), *sql.MIGRATIONS[1]]:
            db.execute(statement.encode())
        db.execute(b"INSERT INTO dsh_schema (version) VALUES (2)")
    async with PostgresStore(fresh_postgres) as store:
        thread = await store.open_thread("t")
        assert thread[0].version == 0 and await store.rules() == [] and await store.approval_events() == []
    with psycopg.connect(fresh_postgres, autocommit=True) as db:
        assert db.execute(b"SELECT version FROM dsh_schema").fetchall() == [(SCHEMA_VERSION,)]
