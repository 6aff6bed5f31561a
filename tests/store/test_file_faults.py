"""Issue 34, item 8: a stored row that does not read back, and a SQLite file deleted or replaced under the store.

A row this code did not write (not JSON, not a record: a hand edit, a disk
fault) is skipped by the read that meets it and counted, instead of making
every ``journal()`` raise. A store whose file was deleted (or replaced) no
longer writes where any other process looks, so it refuses to go on: its
writes fail and are counted, a deferral settles ``APPROVAL_UNAVAILABLE``,
and reads raise ``StoreError`` naming the cause.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from dsh_tools.store import CallStore, PostgresStore, SessionEvent, SqliteStore, StoreError

from test_store_contract import parked, record
from writer_app import approval_of, call, setup

UNREADABLE_BODIES = {
    "not-json": "{this is not json",
    "json-but-not-an-object": "[1, 2]",
    "an-object-but-not-a-record": '{"record_id": "r9", "nonsense": true}',
}


def corrupt(kind: str, where: str, statement: str, params: tuple[object, ...]) -> None:
    """Change a stored row behind the store's back, as a hand edit or a disk fault would."""
    if kind == "sqlite":
        with sqlite3.connect(where) as db:
            db.execute(statement, params)
    else:
        import psycopg

        with psycopg.connect(where, autocommit=True) as db:
            db.execute(statement.replace("?", "%s").encode(), params)


@pytest.mark.parametrize("body", UNREADABLE_BODIES.values(), ids=UNREADABLE_BODIES.keys())
@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_an_unreadable_journal_row_is_skipped_and_counted(
    kind: str, body: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    where = str(tmp_path / "calls.db") if kind == "sqlite" else request.getfixturevalue("fresh_postgres")
    store: CallStore = SqliteStore(where) if kind == "sqlite" else PostgresStore(where)
    async with store:
        await store.write([record("r1"), record("r2"), record("r3")], [])
        corrupt(kind, where, "UPDATE dsh_journal SET body = ? WHERE record_id = ?", (body, "r2"))
        assert [r.record_id for r in await store.journal()] == ["r1", "r3"]
        assert [r.record_id for r in await store.journal(call_id="c-r3")] == ["r3"]  # a read not meeting it counts nothing
        health = store.health()
        assert health.unreadable_rows == 1 and "unreadable journal row" in (health.last_error or "")
        assert health.write_failures == 0


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
async def test_an_unreadable_session_event_row_is_skipped_and_counted(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    where = str(tmp_path / "calls.db") if kind == "sqlite" else request.getfixturevalue("fresh_postgres")
    store: CallStore = SqliteStore(where) if kind == "sqlite" else PostgresStore(where)
    async with store:
        await store.write([], [SessionEvent("a1", "one", {}, 1.0), SessionEvent("a1", "two", {}, 2.0)])
        corrupt(kind, where, "UPDATE dsh_events SET data = ? WHERE type = ?", ("{nope", "one"))
        assert [e.type for e in await store.session_events("a1")] == ["two"]
        assert store.health().unreadable_rows == 1


def remove(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)


def replace(path: Path) -> None:
    """Another file takes the path (a restore from backup, a careless ``mv``): a fresh, valid store."""
    other = path.with_name("other.db")
    SqliteStore(other)
    remove(path)
    os.replace(other, path)


@pytest.mark.parametrize("fault", [remove, replace], ids=["deleted", "replaced"])
async def test_a_deleted_or_replaced_sqlite_file_refuses_parked_calls_and_counts_it(fault: object, tmp_path: Path) -> None:
    path = tmp_path / "calls.db"
    store = SqliteStore(path)
    ctx, agent, runs = setup(store=store)
    approval_of(await ctx.tools.execute(call(agent, "c1", path="a")))

    fault(path)  # type: ignore[operator]
    after = await ctx.tools.execute(call(agent, "c2", path="b"))
    assert after.outcome == "approval-rejected" and after.error is not None
    assert after.error.code == "APPROVAL_UNAVAILABLE" and "deleted or replaced" in after.text
    health = store.health()
    assert health.write_failures >= 2  # the park, and the journal record of the call that could not park
    assert "deleted or replaced" in (health.last_error or "")
    with pytest.raises(StoreError, match="deleted or replaced"):
        await store.journal()
    with pytest.raises(StoreError, match="deleted or replaced"):
        await store.park(parked("p9"), max_per_agent=10)
    assert runs == []
    await store.aclose()


async def test_a_deleted_sqlite_file_fails_the_journal_fast_path_too(tmp_path: Path) -> None:
    path = tmp_path / "calls.db"
    store = SqliteStore(path)
    assert store.write_now_if_free([record("r1")], [])
    remove(path)
    with pytest.raises(StoreError, match="deleted or replaced"):
        store.write_now_if_free([record("r2")], [])
    await store.aclose()


async def test_an_unreadable_parked_row_is_skipped_and_counted_by_every_read(tmp_path: Path) -> None:
    # One damaged parked row must not stop get_parked (the inspector's live view) or interrupted() (recover).
    import sqlite3

    from dsh_tools.store import SqliteStore
    from test_store_contract import parked

    async with SqliteStore(tmp_path / "calls.db") as store:
        for approval_id in ("bad", "good"):
            await store.park(parked(approval_id), max_per_agent=10)
            await store.decide(approval_id, "allowed-once")
            await store.claim(approval_id, owner="gone", lease_seconds=0.0)  # claimed by a process that stopped
        with sqlite3.connect(tmp_path / "calls.db") as db:
            db.execute("UPDATE dsh_parked SET body = 'not json' WHERE approval_id = 'bad'")
        assert await store.get_parked("bad") is None
        assert [call.approval_id for call in await store.interrupted()] == ["good"]
        assert store.health().unreadable_rows >= 2
