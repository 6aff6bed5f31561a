"""Unknown outcomes (issue 34, item 3): a process killed mid-body leaves a trace, and recovery settles it once.

Each test runs a real process (``recovery_process.py``) on a real SQLite file
or PostgreSQL database, waits until its body has started, and kills it with
SIGKILL: at once, and after a second in which its heartbeat renewed the lease.
The running record was committed before the body started, so the store knows
the call; once the lease lapses it is interrupted, and ``recover`` settles it:
an idempotent tool runs again with the same idempotency key, any other call
settles ``TOOL_OUTCOME_UNKNOWN``. Waiting is on conditions, bounded; never a
sleep standing in for one.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from dsh_tools import (
    Agent,
    PostNext,
    PostToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    thaw_json,
)
from dsh_tools.store import CallRecord, InterruptedCall, open_store

from recovery_process import AGENT_ID, app
from store_kinds import child_env, sqlite_path, sqlite_url

HERE = Path(__file__).resolve().parent
SCRIPT = HERE / "recovery_process.py"
LEASE = 0.3


async def _killed_mid_body(url: str, tmp_path: Path, tool: str, call_id: str, *, wait_s: float) -> list[str]:
    """Run ``tool`` in a child process, SIGKILL it once its body started (after ``wait_s``); the bodies' log lines."""
    log = tmp_path / "bodies.log"
    child = await asyncio.create_subprocess_exec(
        sys.executable, str(SCRIPT), url, tool, call_id, env=child_env(tmp_path, LEASE=str(LEASE)), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert child.stdout is not None and child.stderr is not None
        async with asyncio.timeout(60):
            line = await child.stdout.readline()  # until the body printed (or the process died)
        assert line.strip() == b"started", (await child.stderr.read()).decode()
        if tool == "refund":  # an idempotent call may be written up to RUNNING_FLUSH_S after its body starts
            await _recorded(url, call_id)
        if wait_s:
            await asyncio.sleep(wait_s)  # the scenario, not synchronisation: killed after its lease was renewed
        child.send_signal(signal.SIGKILL)
        await child.wait()
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    return log.read_text().splitlines()


async def _recorded(url: str, call_id: str) -> None:
    """Wait (bounded) until the call's running record is in the store."""
    async with open_store(url) as store:
        async with asyncio.timeout(30):
            while not await store.journal(call_id=call_id):
                await asyncio.sleep(0.01)


async def _lapsed(url: str, call_id: str) -> InterruptedCall:
    """Wait (bounded) for the killed call's lease to lapse; the store's listing of it."""
    async with open_store(url) as store:
        async with asyncio.timeout(30):
            while True:
                found = [c for c in await store.interrupted() if c.call_id == call_id]
                if found:
                    return found[0]
                await asyncio.sleep(0.05)


async def _records(url: str, call_id: str) -> list[CallRecord]:
    async with open_store(url) as store:
        return await store.journal(call_id=call_id)


@pytest.mark.parametrize("wait_s", [0.0, 1.0])
async def test_a_killed_non_idempotent_call_is_listed_and_recovered_as_unknown(url: str, tmp_path: Path, wait_s: float) -> None:
    bodies = await _killed_mid_body(url, tmp_path, "charge", "c1", wait_s=wait_s)
    assert len(bodies) == 1 and bodies[0].startswith("charge ")
    key = bodies[0].split()[1]
    (running,) = await _records(url, "c1")
    assert running.outcome == "running" and running.idempotency_key == key and running.owner is not None  # before the body
    interrupted = await _lapsed(url, "c1")
    assert (interrupted.kind, interrupted.agent_id, interrupted.tool_name, interrupted.idempotency_key) == (
        "running", AGENT_ID, "charge", key
    )
    ctx, agent = app(url, tmp_path / "recovered.log", block=False, lease=LEASE)
    (result,) = await ctx.tools.recover(agent)
    assert result.outcome == "unknown" and result.error is not None and result.error.code == "TOOL_OUTCOME_UNKNOWN"
    assert result.text == 'Error: tool "charge" may or may not have taken effect: its process stopped before the call settled'
    assert not (tmp_path / "recovered.log").exists()  # nothing ran again
    (settled,) = await _records(url, "c1")
    assert settled.record_id == running.record_id and settled.outcome == "unknown"
    assert await ctx.tools.recover(agent) == []  # settled once
    await ctx.tools.store.aclose()


@pytest.mark.parametrize("wait_s", [0.0, 1.0])
async def test_a_killed_idempotent_call_runs_again_with_the_same_key(url: str, tmp_path: Path, wait_s: float) -> None:
    bodies = await _killed_mid_body(url, tmp_path, "refund", "c2", wait_s=wait_s)
    key = bodies[0].split()[1]
    await _lapsed(url, "c2")
    ctx, agent = app(url, tmp_path / "recovered.log", block=False, lease=LEASE)
    (result,) = await ctx.tools.recover(agent)
    assert result.outcome == "ok" and result.text == "refund done"
    assert (tmp_path / "recovered.log").read_text().split() == ["refund", key]  # the same key: one effect
    (record,) = await _records(url, "c2")
    assert record.outcome == "ok" and record.idempotency_key == key
    await ctx.tools.store.aclose()


async def test_an_operator_settles_a_dead_agents_call_and_runs_nothing(url: str, tmp_path: Path) -> None:
    await _killed_mid_body(url, tmp_path, "refund", "c3", wait_s=0.0)
    await _lapsed(url, "c3")
    done = subprocess.run(
        [sys.executable, "-m", "dsh_tools.cli", "recover", "--store", url, "--agent", AGENT_ID],
        env=child_env(), capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "c3" in done.stdout and "unknown" in done.stdout
    (record,) = await _records(url, "c3")
    assert record.outcome == "unknown" and record.decided_by == "cli"
    async with open_store(url) as store:
        assert await store.interrupted() == []
        with pytest.raises(KeyError):
            await store.settle_interrupted("c3", decided_by="again")


async def test_the_first_settlement_wins_and_a_late_owner_leaves_a_note(url: str, tmp_path: Path) -> None:
    # A live process whose lease lapsed (it stalled): an operator settles its call, then it settles too.
    ctx = boot(store=url, lease_seconds=0.05)
    release = asyncio.Event()
    started = asyncio.Event()
    from dsh_tools import tool

    @tool
    async def stall() -> str:
        """Stall."""
        started.set()
        await release.wait()
        return "finished late"

    ctx.tools.register(stall)
    agent = Agent(ctx, name="slow", id="slow-1")
    # Stop the heartbeat from renewing: the process stalls as far as the store can tell.
    journal = ctx.events.probes[0]
    leases = getattr(journal, "_leases")
    running = asyncio.ensure_future(ctx.tools.execute(ToolExecutionInput("c4", "stall", {}, agent)))
    await started.wait()
    leases._heartbeat.cancel()
    async with open_store(url) as store:
        async with asyncio.timeout(30):
            while not [c for c in await store.interrupted() if c.call_id == "c4"]:
                await asyncio.sleep(0.02)
        (settled,) = await store.settle_interrupted("c4", decided_by="operator")
    assert settled.outcome == "unknown"
    release.set()
    late = await running
    assert late.outcome == "ok"  # the stalled process hands its result back...
    (record,) = await ctx.tools.store.journal(call_id="c4")
    assert record.outcome == "unknown" and record.decided_by == "operator"  # ...but the first settlement stands
    note = thaw_json(record.late_note)
    assert isinstance(note, dict) and note["outcome"] == "ok"
    await ctx.tools.store.aclose()


async def test_settle_interrupted_refuses_what_is_not_interrupted(url: str) -> None:
    async with open_store(url) as store:
        for bogus in ("nope", "\ud800", "x\x00y"):
            with pytest.raises(KeyError):
                await store.settle_interrupted(bogus, decided_by=None)
        with pytest.raises(KeyError):
            await store.settle_interrupted(7, decided_by=None)  # type: ignore[arg-type]


@pytest.mark.parametrize("turns", [0, 1, 2, 3, 5])
async def test_a_call_cancelled_while_its_lease_is_committed_is_still_recorded(url: str, turns: int) -> None:
    # A non-idempotent call commits its leased running record before its body; a caller that cancels during
    # that commit must still get the call recorded (ABORTED_BEFORE_DISPATCH), never left "running".
    from dsh_tools import tool

    ctx = boot(store=url, lease_seconds=LEASE)

    @tool
    async def charge(cents: int) -> str:
        """Charge a card."""
        return "charged"

    ctx.tools.register(charge)
    agent = Agent(ctx, name="shop", id="shop-9")
    task = asyncio.ensure_future(ctx.tools.execute(ToolExecutionInput(f"t{turns}", "charge", {"cents": 1}, agent)))
    for _ in range(turns):
        await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    records = await ctx.tools.store.journal(call_id=f"t{turns}")
    assert records == [] or [r.outcome for r in records] in (["aborted"], ["ok"])  # settled, never left running
    assert await ctx.tools.store.journal(outcome="running") == []
    await ctx.tools.store.aclose()


class _Queue:
    """A stand-in queue dispatcher that holds one finished dispatch (the DBOS one is tested in tests/dbos)."""

    def __init__(self, key: str, status: str) -> None:
        self.key, self.status = key, status
        self.asked: list[str] = []

    async def queued_calls_of(self, agent_id: str) -> list[object]:
        from dsh_tools.dbos.seam import QueuedCall

        return [QueuedCall("dsh:x", "q", agent_id, "c9", "charge", self.key, 1, self.status)]

    async def result_of(self, call: object) -> object:
        from dsh_tools import ToolExecutionResult, text_block

        self.asked.append(self.key)
        return ToolExecutionResult("c9", (text_block("charged by the worker"),), False)


@pytest.mark.parametrize(("status", "outcome"), [("SUCCESS", "ok"), ("CANCELLED", "unknown")])
async def test_recover_asks_the_queue_before_deciding(tmp_path: Path, status: str, outcome: str) -> None:
    from dsh_tools.dbos.seam import QUEUE_DISPATCHER
    from dsh_tools.store import SqliteStore

    url = sqlite_url(tmp_path)
    async with SqliteStore(sqlite_path(tmp_path)) as store:  # a caller that died while its call was queued
        lapsed = CallRecord(
            "r9", "c9", "shop-1", "charge", {"cents": 5}, "running", 1.0, idempotency_key="k9", owner="gone",
            lease_until=2.0,
        )
        await store.write([lapsed], [])
    ctx, agent = app(url, tmp_path / "recovered.log", block=False, lease=LEASE)
    queue = _Queue("k9", status)
    ctx.provide(QUEUE_DISPATCHER, queue)  # type: ignore[misc]
    heard: list[str] = []

    async def after(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        heard.append(result.text)  # what follows a dispatch runs for the queue's result too (then spilling)
        return await next()

    ctx.on("tools/post-execute", after)
    (result,) = await ctx.tools.recover(agent)
    assert result.outcome == outcome
    if outcome == "ok":
        assert result.text == "charged by the worker" and queue.asked == ["k9"]
        assert heard == ["charged by the worker"]
    assert not (tmp_path / "recovered.log").exists()  # nothing ran here
    (record,) = await ctx.tools.store.journal(call_id="c9")
    assert record.record_id == "r9" and record.outcome == outcome
    await ctx.tools.store.aclose()


async def test_an_interrupted_program_settles_unknown_and_names_the_calls_that_ran(tmp_path: Path) -> None:
    from dsh_tools.store import SqliteStore

    url = sqlite_url(tmp_path)
    async with SqliteStore(sqlite_path(tmp_path)) as store:  # a process died while its program ran
        program = CallRecord(
            "r1", "run", "shop-1", "run_code", {"code": "..."}, "running", 1.0, idempotency_key="k", owner="gone",
            lease_until=2.0,
        )
        charged = CallRecord(
            "r2", "run:code:1", "shop-1", "charge", {"cents": 5}, "ok", 1.5, ended_at=1.6, parent_call_id="run",
        )
        await store.write([program, charged], [])
    ctx, agent = app(url, tmp_path / "recovered.log", block=False, lease=LEASE)
    (result,) = await ctx.tools.recover(agent)
    assert result.outcome == "unknown" and result.error is not None and result.error.code == "TOOL_OUTCOME_UNKNOWN"
    assert result.text.splitlines()[1:] == ["the program's calls the journal shows:", "- charge (call run:code:1): ok"]
    await ctx.tools.store.aclose()
