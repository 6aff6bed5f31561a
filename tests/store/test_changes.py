"""``store.changes(cursor)``: new and changed journal rows and the waiting parked calls, and nothing else, on every store."""

from __future__ import annotations

import asyncio
import time

import pytest

from dsh_tools import Agent, ToolExecution, ToolExecutionInput, boot, tool
from dsh_tools.store import MemoryStore
from dsh_tools.store import CallRecord, CallStore, ChangeCursor, ChangeSource, ParkedCall, PostgresStore, SqliteStore
from dsh_tools.store import sql


def record(record_id: str, outcome: str = "ok", **fields: object) -> CallRecord:
    return CallRecord(record_id, f"call-{record_id}", "a1", "echo", {"text": record_id}, outcome, time.time(), **fields)  # type: ignore[arg-type]


def parked(approval_id: str) -> ParkedCall:
    return ParkedCall(
        approval_id=approval_id, agent_id="a1", agent_name="writer", call_id=f"c-{approval_id}", tool_name="write_file",
        arguments={"path": "a.txt"}, description="Write.", parameters={"type": "object"}, fingerprint="f" * 64,
        created_at=time.time(),
    )


def ids(records: tuple[CallRecord, ...]) -> list[str]:
    return [r.record_id for r in records]


async def look(store: CallStore, cursor: ChangeCursor | None) -> tuple[ChangeCursor, list[str], tuple[str, ...] | None]:
    assert isinstance(store, ChangeSource)
    changes = await store.changes(cursor)
    return changes.cursor, ids(changes.records), changes.parked


async def test_a_look_returns_what_changed_and_nothing_else(store: CallStore) -> None:
    await store.write([record(f"old{n}") for n in range(50)], [])
    await store.park(parked("p1"), max_per_agent=10)
    cursor, changed, waiting = await look(store, None)
    assert changed == [] and waiting == ("p1",)  # the first look only places the cursor

    cursor, changed, _ = await look(store, cursor)
    assert changed == []  # nothing happened

    await store.write([record("new1"), record("run1", "running")], [])
    cursor, changed, _ = await look(store, cursor)
    assert changed == ["new1", "run1"]  # only the two rows written, not the 50 before them

    await store.write([record("run1", "running", progress={"progress": 1})], [])
    cursor, changed, _ = await look(store, cursor)
    assert changed == ["run1"]  # a running row that moved is sent again

    await store.write([record("run1", "ok", ended_at=time.time())], [])
    cursor, changed, _ = await look(store, cursor)
    assert changed == ["run1"]

    await store.park(parked("p2"), max_per_agent=10)
    await store.decide("p1", "rejected")
    cursor, changed, waiting = await look(store, cursor)
    assert changed == [] and waiting == ("p2",)


async def test_a_running_row_from_before_the_first_look_is_followed(store: CallStore) -> None:
    await store.write([record("run1", "running")], [])
    cursor, _, _ = await look(store, None)
    await store.write([record("run1", "ok", ended_at=time.time())], [])
    _, changed, _ = await look(store, cursor)
    assert changed == ["run1"]


async def test_sqlite_answers_an_idle_look_without_reading_a_table(store: CallStore, monkeypatch: pytest.MonkeyPatch) -> None:
    if not isinstance(store, SqliteStore):
        pytest.skip("the data_version gate is SQLite's")
    await store.write([record("r1")], [])
    cursor, _, _ = await look(store, None)
    reads: list[str] = []
    real_read = SqliteStore._read

    async def counted(self: SqliteStore, statement: str, params: object) -> object:
        reads.append(statement)
        return await real_read(self, statement, params)  # type: ignore[arg-type]

    monkeypatch.setattr(SqliteStore, "_read", counted)
    for _ in range(5):
        cursor, changed, waiting = await look(store, cursor)
        assert changed == [] and waiting is None
    assert reads == []
    other = SqliteStore(store.path)  # another connection (another process, as far as SQLite can tell) commits
    await other.write([record("r2")], [])
    await other.aclose()
    _, changed, _ = await look(store, cursor)
    assert changed == ["r2"]


async def test_postgres_finds_a_row_committed_out_of_seq_order(store: CallStore) -> None:
    if not isinstance(store, PostgresStore):
        pytest.skip("replicas commit out of seq order on PostgreSQL")
    import psycopg

    cursor, _, _ = await look(store, None)
    async with await psycopg.AsyncConnection.connect(store._dsn) as slow:
        async with slow.transaction():  # takes its seq first, commits last
            statement = sql.UPSERT_RECORD.replace("?", "%s").encode()
            await slow.execute(statement, sql.record_params(record("early"), 65536))
            await store.write([record("late")], [])
            cursor, changed, _ = await look(store, cursor)
            assert changed == ["late"]
        cursor, changed, _ = await look(store, cursor)
        assert changed == ["early"]



class _Gates:
    reported = asyncio.Event()
    go = asyncio.Event()


@tool
async def slow(exec: ToolExecution) -> str:
    """Report progress, then wait to be let go."""
    await exec.report_progress(1, 2, "half")
    _Gates.reported.set()
    await _Gates.go.wait()
    return "done"


async def test_memory_running_calls_are_seen_as_they_move() -> None:
    """A memory store never writes a running call: its journal shows it when read, and so does ``changes``."""
    _Gates.reported, _Gates.go = asyncio.Event(), asyncio.Event()
    ctx = boot()
    ctx.tools.register(slow)
    store = ctx.tools.store
    assert isinstance(store, MemoryStore)
    cursor, _, _ = await look(store, None)
    running = asyncio.create_task(ctx.tools.execute(ToolExecutionInput("c1", "slow", {}, Agent(ctx, name="a"))))
    await _Gates.reported.wait()
    changes = await store.changes(cursor)
    (record,) = changes.records
    assert record.outcome == "running" and record.progress == {"progress": 1, "total": 2, "message": "half"}
    cursor, changed, _ = await look(store, changes.cursor)
    assert changed == []  # it did not move since
    _Gates.go.set()
    await running
    _, changed, _ = await look(store, cursor)
    assert changed == [record.record_id]
