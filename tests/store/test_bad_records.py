"""Issue 34, item 7: one bad record never costs another its place in the journal.

Records are committed in groups (``docs/durability.md``), so a record the
database refuses used to fail the whole group: a tool name holding a NUL
(PostgreSQL's text refuses it; models and MCP clients can send one) lost
other agents' settled calls and left a batch sibling ``"running"``. Now a
NUL in a name is stored (the filtered columns hold U+FFFD where the JSON
body keeps the exact name), and a record that still cannot be stored is
counted and logged alone while its neighbours are written.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from dsh_tools import Agent, ToolExecutionInput, boot, thaw_json, tool
from dsh_tools.store import CallStore, SessionEvent, SqliteStore

from store_kinds import DURABLE, Kind, location, store_of
from test_store_contract import record

NUL_NAME = "evil\x00name"


async def test_a_nul_in_a_name_is_stored_with_its_neighbours_and_reads_back_exactly(store: CallStore) -> None:
    hostile = record("r2", tool_name=NUL_NAME, call_id="call\x00id", agent_id="agent\x00x", parent_call_id="p\x00")
    await store.write(
        [record("r1"), hostile, record("r3")],
        [SessionEvent("agent\x00x", "type\x00", {"text": "a\x00b"}, 1.0), SessionEvent("a1", "note", {}, 2.0)],
    )
    assert [r.record_id for r in await store.journal()] == ["r1", "r2", "r3"]
    assert await store.journal(tool_name=NUL_NAME) == [hostile]  # the body keeps the exact name
    assert await store.journal(call_id="call\x00id") == [hostile]
    assert await store.journal(agent_id="agent\x00x") == [hostile]
    (event,) = await store.session_events("agent\x00x")
    assert thaw_json(event.data) == {"text": "a\x00b"}  # an event has no body beside its columns: its names keep their column
    assert event.type in ("type\x00", "type\ufffd")  # form on a durable store (U+FFFD for the NUL), and it is kept
    assert store.health().write_failures == 0


async def test_a_record_that_cannot_be_encoded_is_counted_and_logged_alone(
    store: CallStore, caplog: pytest.LogCaptureFixture
) -> None:
    lone_surrogate = record("r2", tool_name="bad\ud800")  # no UTF-8 (so no JSON body) can carry it
    huge = record("r3", started_at=10**400)  # no JSON number either
    with caplog.at_level(logging.WARNING, logger="dsh_tools.store"):
        await store.write([record("r1"), lone_surrogate, huge, record("r4")], [SessionEvent("a1", "note", {}, 1.0)])
    kept = [r.record_id for r in await store.journal()]
    if store.durable:  # a MemoryStore keeps values, not their encoding: nothing to refuse
        assert kept == ["r1", "r4"]
        assert store.health().write_failures == 2
        assert "journal record 'r2'" in caplog.text and "journal record 'r3'" in caplog.text
    else:
        assert kept == ["r1", "r2", "r3", "r4"]
    assert len(await store.session_events("a1")) == 1


def poison(store: CallStore, where: str) -> None:
    """Make the database itself refuse one row: a CHECK constraint (PostgreSQL) or a trigger (SQLite)."""
    if isinstance(store, SqliteStore):
        import sqlite3

        with sqlite3.connect(store.path) as db:
            db.execute(
                "CREATE TRIGGER poison BEFORE INSERT ON dsh_journal WHEN NEW.tool_name = 'poison'"
                " BEGIN SELECT RAISE(ABORT, 'poisoned row'); END"
            )
    else:
        import psycopg

        with psycopg.connect(where, autocommit=True) as db:
            db.execute("ALTER TABLE dsh_journal ADD CONSTRAINT poison CHECK (tool_name <> 'poison')")


@pytest.mark.parametrize("kind", DURABLE)
async def test_a_record_the_database_refuses_is_counted_and_its_group_still_written(
    kind: Kind, tmp_path: Path, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    where = location(kind, tmp_path, request)
    async with store_of(kind, tmp_path, request) as store:
        await store.write([record("r0")], [])  # creates the tables
        poison(store, where)
        with caplog.at_level(logging.WARNING, logger="dsh_tools.store"):
            await store.write(
                [record("r1"), record("r2", tool_name="poison"), record("r3")], [SessionEvent("a1", "note", {}, 1.0)]
            )
        assert [r.record_id for r in await store.journal()] == ["r0", "r1", "r3"]
        assert len(await store.session_events("a1")) == 1
        health = store.health()
        assert health.write_failures == 1 and "journal record 'r2'" in (health.last_error or "")
        assert "journal record 'r2'" in caplog.text


@tool
async def echo(text: str) -> str:
    """Echo."""
    return text


@pytest.mark.parametrize("kind", DURABLE)
async def test_a_nul_tool_name_costs_no_other_agent_its_record_and_leaves_no_sibling_running(
    kind: Kind, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store = store_of(kind, tmp_path, request)
    ctx = boot(store=store)
    ctx.tools.register(echo)
    agents = [Agent(ctx, name=f"a{n}", id=f"agent-{n}") for n in range(40)]
    hostile = Agent(ctx, name="mallory", id="mallory")

    async def honest(agent: Agent) -> None:
        for n in range(3):
            result = await ctx.tools.execute(ToolExecutionInput(f"{agent.id}-{n}", "echo", {"text": "hi"}, agent))
            assert result.outcome == "ok"

    batch = [
        ToolExecutionInput("sibling", "echo", {"text": "hi"}, hostile),
        ToolExecutionInput("evil", NUL_NAME, {}, hostile),
    ]
    batch_run = asyncio.ensure_future(ctx.tools.execute_batch(batch))  # in the same group commits as the others
    await asyncio.gather(*(honest(agent) for agent in agents))
    results = await batch_run
    assert [r.outcome for r in results] == ["ok", "unknown-tool"]
    journal = await store.journal(limit=1000)
    assert len(journal) == 40 * 3 + 2
    assert not [r.call_id for r in journal if r.outcome == "running"]
    assert [r.outcome for r in await store.journal(agent_id="mallory")] == ["ok", "unknown-tool"]
    assert (await store.journal(call_id="evil"))[0].tool_name == NUL_NAME
    assert store.health().write_failures == 0
    await store.aclose()
