"""Programs that wait for a human, end to end in the real Deno sandbox: park, resume, replay, across processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import orjson
import pytest

from dsh_tools import (
    APPROVAL,
    Agent,
    Ask,
    Context,
    DeferringApprovalService,
    DenoCodeRuntime,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    boot,
    thaw_json,
    tool,
)

HERE = Path(__file__).resolve().parent

PROGRAM = """
const who = await tools.lookup({ name: "ada" });
console.log("looked up", who);
let paid;
try {
  paid = await tools.charge_card({ amount: 5 });
} catch (error) {
  paid = "not charged: " + (error as Error).message;
}
const after = await tools.lookup({ name: "bob" });
return `${who}; ${paid}; ${after}`;
"""


async def charges_ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
    return Ask("moves money") if exec.name == "charge_card" else await next()


def install(ctx: Context, lookups: list[str], charges: list[int]) -> None:
    @tool
    async def lookup(name: str) -> str:
        """Find a customer."""
        lookups.append(name)
        return f"customer {name}"

    @tool
    async def charge_card(amount: int) -> str:
        """Charge the card."""
        charges.append(amount)
        return f"charged {amount}"

    ctx.tools.register(lookup)
    ctx.tools.register(charge_card)
    ctx.on("tools/pre-execute", charges_ask)
    ctx.provide(APPROVAL, DeferringApprovalService())


class Coder:
    """A code-mode agent on ``runtime`` with ``install``'s tools, their effects counted: park a program, approve it."""

    def __init__(self, runtime: DenoCodeRuntime) -> None:
        self.lookups: list[str] = []
        self.charges: list[int] = []
        self.ctx = boot(mode="code", code_runtime=runtime)
        install(self.ctx, self.lookups, self.charges)
        self.agent = Agent(self.ctx, name="coder")

    async def run(self, program: str) -> ToolExecutionResult:
        return await self.ctx.tools.execute(ToolExecutionInput("run", "run_code", {"code": program}, self.agent))

    async def approve(self, parked: ToolExecutionResult) -> ToolExecutionResult:
        return await self.ctx.tools.resume(thaw_json(parked.meta)["approvalId"], "allowed-once")  # type: ignore[index]


@pytest.fixture
async def runtime() -> AsyncIterator[DenoCodeRuntime]:
    made = DenoCodeRuntime(pool_size=0)
    yield made
    await made.dispose()


async def test_a_deno_program_parks_and_resumes_by_replay(runtime: DenoCodeRuntime) -> None:
    coder = Coder(runtime)
    lookups, charges = coder.lookups, coder.charges
    parked = await coder.run(PROGRAM)
    assert parked.outcome == "approval-pending", parked.text
    async with asyncio.timeout(30):  # no sandbox waits on a human: the parked run's process was killed
        while runtime.live_pids:
            await asyncio.sleep(0.01)
    meta = thaw_json(parked.meta)
    assert isinstance(meta, dict) and meta["subCall"] == {"callId": "run:code:2", "name": "charge_card"}
    assert lookups == ["ada"] and charges == []
    result = await coder.approve(parked)
    assert result.outcome == "ok", result.text
    assert result.text == "(resumed after the approval of charge_card)\nlooked up customer ada\ncustomer ada; charged 5; customer bob"
    assert lookups == ["ada", "bob"] and charges == [5]


async def test_a_deno_program_that_parks_then_runs_out_of_time_on_replay_times_out() -> None:
    runtime = DenoCodeRuntime(pool_size=0, max_wall_ms=3000)
    program = "await tools.charge_card({ amount: 1 }); while (true) {}"
    coder = Coder(runtime)
    result = await coder.approve(await coder.run(program))
    assert result.is_error and "timeout" in result.text, result.text
    await runtime.dispose()


def test_a_program_parked_in_one_process_resumes_in_another(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'calls.db'}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}

    def step(*argv: str) -> object:
        done = subprocess.run(
            [sys.executable, str(HERE / "program_process.py"), url, *argv], env=env, capture_output=True, text=True, timeout=180
        )
        assert done.returncode == 0, done.stderr
        return orjson.loads(done.stdout.splitlines()[-1])

    parked = step("park")
    assert isinstance(parked, dict) and parked["outcome"] == "approval-pending" and parked["lookups"] == ["ada"]
    resumed = step("resume", str(parked["approvalId"]))
    assert resumed == {
        "outcome": "ok",
        "text": "(resumed after the approval of charge_card)\nlooked up customer ada\ncustomer ada; charged 5; customer bob",
        "lookups": ["bob"],
        "charges": [5],
    }


async def test_clocks_and_random_repeat_their_first_run_values_on_replay(runtime: DenoCodeRuntime) -> None:
    program = """
    const stamp = { now: Date.now(), date: new Date().getTime(), perf: performance.now(), roll: Math.random() };
    await tools.charge_card({ amount: Math.floor(stamp.roll * 1000) });
    return stamp;
    """
    coder = Coder(runtime)
    ctx, charges = coder.ctx, coder.charges
    parked = await coder.run(program)
    assert parked.outcome == "approval-pending", parked.text
    (pending,) = await ctx.tools.pending_approvals(coder.agent)
    first_amount = thaw_json(pending.execution.arguments)["amount"]  # type: ignore[index]
    stored = await ctx.tools.store.get_parked(pending.approval_id)
    assert stored is not None
    first_clock = thaw_json(stored.program)["clock"]  # type: ignore[index]
    result = await ctx.tools.resume(pending.approval_id, "allowed-once")
    assert result.outcome == "ok", result.text  # the same roll, so the same call: no divergence
    stamp = orjson.loads(result.text.splitlines()[-1])
    assert charges == [first_amount] == [int(stamp["roll"] * 1000)]
    assert [stamp["now"], stamp["date"], stamp["perf"]] == first_clock[:3]  # the first run's reads, repeated
    kept = [r for r in await ctx.tools.store.journal(call_id="run")]
    assert [r.outcome for r in kept] == ["approval-pending", "ok"]


async def test_an_unrepeatable_program_is_detected_as_a_divergence(runtime: DenoCodeRuntime) -> None:
    program = """
    const bytes = crypto.getRandomValues(new Uint32Array(1));
    await tools.lookup({ name: String(bytes[0]) });
    await tools.charge_card({ amount: 1 });
    """
    coder = Coder(runtime)
    result = await coder.approve(await coder.run(program))
    assert result.error is not None and result.error.code == "REPLAY_DIVERGED", result.text
    assert "diverged at call 1" in result.text and len(coder.lookups) == 1  # never dispatched again


async def test_a_divergent_replay_names_the_approved_charge_that_ran(runtime: DenoCodeRuntime) -> None:
    # Issue 34 item 4, as a new user met it: the lookup's argument is random, so the rerun diverges at call 1,
    # after the approved charge ran. The result must say the charge happened, or a model charges again.
    program = """
    await tools.lookup({ name: crypto.randomUUID() });
    await tools.charge_card({ amount: 7 });
    """
    coder = Coder(runtime)
    ctx, lookups, charges = coder.ctx, coder.lookups, coder.charges
    result = await coder.approve(await coder.run(program))
    assert charges == [7] and len(lookups) == 1  # charged once; the diverging lookup was not dispatched
    assert result.error is not None and result.error.code == "REPLAY_DIVERGED", result.text
    assert "diverged at call 1" in result.text
    assert "- charge_card (call run:code:2): ok: charged 7" in result.text.splitlines()
    assert thaw_json(result.meta) == {"effects": [{"callId": "run:code:2", "name": "charge_card", "outcome": "ok"}]}
    (record,) = [r for r in await ctx.tools.store.journal(call_id="run") if r.outcome != "approval-pending"]
    assert record.outcome == "error" and thaw_json(record.meta) == thaw_json(result.meta)


async def test_a_replay_that_fails_after_its_approved_call_lists_every_live_call(runtime: DenoCodeRuntime) -> None:
    program = """
    await tools.charge_card({ amount: 3 });
    await tools.lookup({ name: "after" });
    throw new Error("the program broke after paying");
    """
    coder = Coder(runtime)
    lookups, charges = coder.lookups, coder.charges
    result = await coder.approve(await coder.run(program))
    assert result.error is not None and result.error.code == "CODE_RUN_FAILED", result.text
    assert charges == [3] and lookups == ["after"]
    assert thaw_json(result.meta) == {
        "effects": [
            {"callId": "run:code:1", "name": "charge_card", "outcome": "ok"},
            {"callId": "run:code:2", "name": "lookup", "outcome": "ok"},
        ]
    }
    assert "- lookup (call run:code:2): ok" in result.text.splitlines()
