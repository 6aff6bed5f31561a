"""Durable calls (issue 21): what the journal costs, and that it stays bounded.

* ``execute()`` throughput with a ``SqliteStore`` journal against the same
  calls with the default ``MemoryStore`` (target ≥ 0.4×);
* a 1,000-call ``execute_batch`` with a ``PostgresStore`` journal (a real
  server started here) against ``MemoryStore`` (target ≥ 0.25×; group commit
  puts many calls' records in one transaction);
* ``store.journal(limit=100)`` over 100k SQLite records: the time, and whether
  the query plan walks an index (target: no full scan);
* host memory while journaling calls: the growth over the last half of the
  run (target: flat, under 1 MB for 10k calls).

Run standalone: ``python -m benchmarks.bench_store``.
"""

from __future__ import annotations

import asyncio
import gc
import sqlite3
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from dsh_tools import Context, ToolExecutionInput, boot
from dsh_tools.store import CallRecord, CallStore, MemoryStore, PostgresStore, SqliteStore

from benchmarks._common import Noop, Row

ROUNDS = 3
SEQUENTIAL = 1_000
BATCH = 1_000
JOURNAL_ROWS = 100_000


def _registry(store: CallStore) -> Context:
    ctx = boot(timeouts=False, store=store)
    ctx.tools.register(Noop())
    return ctx


async def _sequential(store: CallStore) -> float:
    """Calls per second through ``execute()``, one after another (best of ``ROUNDS``)."""
    ctx = _registry(store)
    best = float("inf")
    for round_ in range(ROUNDS):
        started = time.perf_counter()
        for n in range(SEQUENTIAL):
            await ctx.tools.execute(ToolExecutionInput(f"r{round_}c{n}", "noop", {}))
        best = min(best, time.perf_counter() - started)
    return SEQUENTIAL / best


async def _batch(store: CallStore) -> float:
    ctx = _registry(store)
    best = float("inf")
    for round_ in range(ROUNDS):
        calls = [ToolExecutionInput(f"b{round_}c{n}", "noop", {}) for n in range(BATCH)]
        started = time.perf_counter()
        await ctx.tools.execute_batch(calls, max_parallel=64)
        best = min(best, time.perf_counter() - started)
    return BATCH / best


async def _journal_query(folder: Path) -> tuple[float, bool]:
    store = SqliteStore(folder / "big.db")
    now = time.time()
    for start in range(0, JOURNAL_ROWS, 5_000):
        rows = [
            CallRecord(f"r{n}", f"c{n}", f"a{n % 50}", f"tool{n % 20}", {"n": n}, "ok", now, ended_at=now)
            for n in range(start, start + 5_000)
        ]
        await store.write(rows, [])
    best = float("inf")
    for _ in range(5):
        started = time.perf_counter()
        found = await store.journal(limit=100, tool_name="tool3")
        best = min(best, time.perf_counter() - started)
    assert len(found) == 100
    await store.aclose()
    with sqlite3.connect(folder / "big.db") as db:
        plan = " ".join(str(row) for row in db.execute(
            "EXPLAIN QUERY PLAN SELECT body FROM dsh_journal WHERE tool_name = ? ORDER BY seq DESC LIMIT 100", ("tool3",)
        ))
    return best * 1000, "USING INDEX" in plan and "SCAN dsh_journal" not in plan.replace("USING INDEX", "")


async def _memory_growth(folder: Path) -> float:
    """KB the host grew over the second half of journaling 10k calls to a SQLite store."""
    store = SqliteStore(folder / "memory.db")
    ctx = _registry(store)
    half = 5_000
    for n in range(half):
        await ctx.tools.execute(ToolExecutionInput(f"w{n}", "noop", {}))
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for n in range(half, 2 * half):
        await ctx.tools.execute(ToolExecutionInput(f"w{n}", "noop", {}))
    gc.collect()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    await store.aclose()
    return (after - before) / 1024


def _postgres() -> object:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "store"))  # the suite's server helper
    from postgres_server import postgres_server

    return postgres_server()


async def _measure(folder: Path, dsn: str) -> list[Row]:
    memory = await _sequential(MemoryStore())
    sqlite = await _sequential(SqliteStore(folder / "seq.db"))
    memory_batch = await _batch(MemoryStore())
    async with PostgresStore(dsn) as pg:
        postgres_batch = await _batch(pg)
    query_ms, indexed = await _journal_query(folder)
    growth = await _memory_growth(folder)
    return [
        ("store: execute() calls/s, MemoryStore journal", memory, "", True),
        ("store: execute() calls/s, SqliteStore journal", sqlite, "", True),
        ("store: SqliteStore / MemoryStore throughput", sqlite / memory, ">= 0.4", sqlite / memory >= 0.4),
        ("store: 1,000-call batch, PostgresStore / MemoryStore", postgres_batch / memory_batch, ">= 0.25",
         postgres_batch / memory_batch >= 0.25),
        ("store: journal(limit=100) over 100k SQLite rows (ms)", query_ms, "indexed", indexed),
        ("store: host growth journaling calls 5k-10k (KB)", growth, "< 1024", growth < 1024),
    ]


def run() -> list[Row]:
    with tempfile.TemporaryDirectory() as folder, _postgres() as dsn:  # type: ignore[attr-defined]
        return asyncio.run(_measure(Path(folder), dsn))


if __name__ == "__main__":
    for row in run():
        print(row)
