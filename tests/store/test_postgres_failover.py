"""Issue 34, item 6: a PostgreSQL failover costs nothing but time.

Each test takes a real server away the way a crash or a failover does
(``pg_ctl stop -m immediate``: every connection cut) and starts it again on
the same port. These tests use a server of their own, so restarting it never
disturbs the other suites' server. While the database is away a call still
settles (its journal record is buffered in memory and written when the
database is back), a deferral settles ``APPROVAL_UNAVAILABLE``, a read raises
``StoreError`` within the connect timeout, and ``watch_decisions`` waits;
afterwards everything carries on without a restart of the process.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator

import pytest

from dsh_tools import APPROVAL, Agent, Ask, Context, DeferringApprovalService, PreNext, PreToolDecision
from dsh_tools import ToolExecution, ToolExecutionInput, ToolExecutionResult, boot, thaw_json, tool
from dsh_tools.store import PostgresStore, StoreError

from postgres_server import PostgresServer, fresh_database, restartable_postgres_server
from test_store_contract import parked, record

CONNECT_TIMEOUT = 2.0


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    with restartable_postgres_server() as started:
        yield started


@pytest.fixture
def database(server: PostgresServer) -> Iterator[str]:
    if not server.running:  # a test that failed mid-outage leaves it stopped
        server.start()
    yield fresh_database(server.dsn)


async def until(condition: Callable[[], bool], what: str, seconds: float = 30.0) -> None:
    """Poll ``condition`` until it holds (the store reconnects on its own schedule), at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        await asyncio.sleep(0.05)


async def ask_for_writes(exec: ToolExecution, next: PreNext) -> PreToolDecision:
    return Ask("writes") if exec.name == "write_file" else await next()


def app(store: PostgresStore) -> tuple[Context, Agent]:
    ctx = boot(store=store)

    @tool
    async def echo(text: str) -> str:
        """Echo."""
        return text

    @tool
    async def write_file(path: str) -> str:
        """Write a file."""
        return f"wrote {path}"

    ctx.tools.register(echo)
    ctx.tools.register(write_file)
    ctx.on("tools/pre-execute", ask_for_writes)
    ctx.provide(APPROVAL, DeferringApprovalService())
    return ctx, Agent(ctx, name="writer", id="writer-1")


def approval_of(result: ToolExecutionResult) -> str:
    assert result.outcome == "approval-pending", result.text
    return str(thaw_json(result.meta)["approvalId"])  # type: ignore[index]


async def collect(results: AsyncIterator[ToolExecutionResult], into: list[tuple[str, str]]) -> None:
    async for result in results:
        into.append((result.outcome, result.text))


async def test_postgres_failover_calls_during_the_outage_settle_and_are_journaled_after_it(
    server: PostgresServer, database: str
) -> None:
    store = PostgresStore(database, connect_timeout=CONNECT_TIMEOUT)
    ctx, agent = app(store)

    def call(call_id: str, name: str, **arguments: str) -> ToolExecutionInput:
        return ToolExecutionInput(call_id, name, arguments, agent)

    assert (await ctx.tools.execute(call("before", "echo", text="before"))).outcome == "ok"
    waiting = approval_of(await ctx.tools.execute(call("parked-before", "write_file", path="a.txt")))
    watched: list[tuple[str, str]] = []
    # a minute: only the re-established LISTEN can wake the watcher in time, never a poll
    watcher = asyncio.ensure_future(collect(ctx.tools.watch_decisions(agent, poll_seconds=60), watched))

    await asyncio.to_thread(server.stop)
    during = await ctx.tools.execute(call("during", "echo", text="during"))
    assert (during.outcome, during.text) == ("ok", "during")  # the call settles; its record waits in memory
    deferred = await ctx.tools.execute(call("deferred-during", "write_file", path="b.txt"))
    assert deferred.outcome == "approval-rejected" and deferred.error is not None
    assert deferred.error.code == "APPROVAL_UNAVAILABLE"  # nobody is handed an id nobody could resume
    for read in (store.journal, store.parked, lambda: ctx.tools.resume(waiting, "allowed-once")):
        started = time.monotonic()
        with pytest.raises(StoreError):
            await read()
        assert time.monotonic() - started < CONNECT_TIMEOUT + 1.0
    assert store.health().buffered >= 2
    assert not watcher.done()  # it waits out the outage

    await asyncio.to_thread(server.start)
    await until(lambda: store.health().buffered == 0, "the buffered records to be written")
    outcomes = {r.call_id: r.outcome for r in await store.journal()}
    assert outcomes == {
        "before": "ok",
        "parked-before": "approval-pending",
        "during": "ok",
        "deferred-during": "approval-rejected",
    }

    async with PostgresStore(database) as elsewhere:  # a page decides the call parked before the outage
        await elsewhere.decide(waiting, "allowed-once", decided_by="alice")
    await until(lambda: bool(watched), "the watcher to run the decided call")
    assert watched == [("ok", "wrote a.txt")]
    approval_of(await ctx.tools.execute(call("parked-after", "write_file", path="c.txt")))  # deferrals park again
    health = store.health()
    assert health.dropped == 0 and health.buffered == 0
    watcher.cancel()
    await store.aclose()


async def test_postgres_failover_the_first_statement_after_a_restart_reconnects_instead_of_failing(
    server: PostgresServer, database: str
) -> None:
    async with PostgresStore(database, connect_timeout=CONNECT_TIMEOUT) as store:
        assert await store.park(parked("p1"), max_per_agent=10)
        await asyncio.to_thread(server.stop)
        await asyncio.to_thread(server.start)  # nothing ran meanwhile: the store's connection is stale
        assert [p.approval_id for p in await store.parked()] == ["p1"]
        await store.decide("p1", "allowed-once")
        await store.write([record("r1")], [])
        assert [r.record_id for r in await store.journal()] == ["r1"]
        assert store.health().write_failures == 0


async def test_postgres_failover_a_write_during_the_outage_is_a_store_error_not_a_driver_error(
    server: PostgresServer, database: str
) -> None:
    async with PostgresStore(database, connect_timeout=CONNECT_TIMEOUT) as store:
        await asyncio.to_thread(server.stop)
        with pytest.raises(StoreError):
            await store.park(parked("p1"), max_per_agent=10)
        with pytest.raises(StoreError):
            await store.decide("p1", "allowed-once")
        await asyncio.to_thread(server.start)
        assert await store.park(parked("p1"), max_per_agent=10)


async def test_postgres_failover_the_buffer_is_bounded_and_its_overflow_counted(
    server: PostgresServer, database: str, caplog: pytest.LogCaptureFixture
) -> None:
    async with PostgresStore(database, connect_timeout=CONNECT_TIMEOUT, max_buffered=3) as store:
        await store.write([record("r0")], [])
        await asyncio.to_thread(server.stop)
        with caplog.at_level(logging.WARNING, logger="dsh_tools.store"):
            await store.write([record("r1", outcome="running", ended_at=None), record("r2")], [])
            await store.write([record("r3"), record("r4")], [])
            await store.write([record("r1", outcome="ok")], [])  # a later version of a held record takes its place
        health = store.health()
        assert (health.buffered, health.dropped) == (3, 1)
        assert "dropped" in caplog.text
        await asyncio.to_thread(server.start)
        await until(lambda: store.health().buffered == 0, "the buffered records to be written")
        assert [(r.record_id, r.outcome) for r in await store.journal()] == [
            ("r0", "ok"),
            ("r1", "ok"),
            ("r2", "ok"),
            ("r3", "ok"),
        ]


async def test_postgres_failover_a_store_closed_during_the_outage_counts_and_logs_what_it_loses(
    server: PostgresServer, database: str, caplog: pytest.LogCaptureFixture
) -> None:
    store = PostgresStore(database, connect_timeout=CONNECT_TIMEOUT)
    await store.write([record("r0")], [])
    await asyncio.to_thread(server.stop)
    await store.write([record("r1"), record("r2")], [])
    with caplog.at_level(logging.WARNING, logger="dsh_tools.store"):
        await store.aclose()
    assert store.health().dropped == 2 and "2 journal records and session events were lost" in caplog.text
    await asyncio.to_thread(server.start)
    async with PostgresStore(database) as after:
        assert [r.record_id for r in await after.journal()] == ["r0"]


def test_the_failover_docs_quote_the_code() -> None:
    from pathlib import Path

    from dsh_tools.store.backlog import DEFAULT_MAX_BUFFERED
    from dsh_tools.store.reconnect import FIRST_DELAY_S, MAX_DELAY_S

    page = Path(__file__).resolve().parents[2] / "docs" / "durability.md"
    text = " ".join(page.read_text(encoding="utf-8").split())
    assert f"backoff from {FIRST_DELAY_S:g} s to {MAX_DELAY_S:g} s" in text
    assert f"`PostgresStore(dsn, max_buffered=...)` rows ({DEFAULT_MAX_BUFFERED:,} by default)" in text
