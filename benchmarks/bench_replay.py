"""Programs that wait for a human (issue 25): what replay costs, and what its bookkeeping adds to a call.

* replay overhead: a program whose first 10 calls are journaled, rerun after
  the approval of its 11th (the 10 answered from the record, silently), against
  the same program run live, every call through the pipeline to no-op tools
  (target ≤ 1.5×);
* bookkeeping: 100 sequential binding calls through ``run_code`` (bridge and
  pipeline), as shipped, against the same with the replay record of each
  call switched off, measured alternately in this run (target ≤ 1.10×).

Run standalone: ``python -m benchmarks.bench_replay``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from dsh_tools import (
    APPROVAL, Agent, ApprovalOutcome, ApprovalRequest, Ask, Context, DenoCodeRuntime, PreNext, PreToolDecision,
    ToolExecution, ToolExecutionInput, boot, thaw_json, tool,
)
from dsh_tools.code_mode.replay import RecordedCall

from benchmarks._common import Row

ROUNDS = 7
REPLAY_PROGRAM = "for (let i = 0; i < 10; i++) await tools.noop({ i }); return await tools.gated({});"
SEQUENTIAL_PROGRAM = "let n = 0; for (let i = 0; i < 100; i++) { await tools.noop({ i }); n++; } return n;"


@tool
async def noop(i: int) -> str:
    """Does nothing."""
    return ""


@tool
async def gated() -> str:
    """Needs a human in the replay rounds."""
    return "done"


class Answer:
    def __init__(self) -> None:
        self.outcome: ApprovalOutcome = "deferred"

    async def request(self, request: ApprovalRequest, /) -> ApprovalOutcome:
        return self.outcome


def _app(runtime: DenoCodeRuntime) -> tuple[Context, Agent, Answer]:
    ctx = boot(mode="code", code_runtime=runtime, timeouts=False)
    ctx.tools.register(noop)
    ctx.tools.register(gated)
    answer = Answer()

    async def ask(exec: ToolExecution, next: PreNext) -> PreToolDecision:
        return Ask("gated") if exec.name == "gated" else await next()

    ctx.on("tools/pre-execute", ask)
    ctx.provide(APPROVAL, answer)
    return ctx, Agent(ctx, name="bench"), answer


async def _timed(step: Callable[[], Awaitable[object]]) -> float:
    started = time.perf_counter()
    await step()
    return time.perf_counter() - started


async def _replay(runtime: DenoCodeRuntime) -> tuple[float, float]:
    ctx, agent, answer = _app(runtime)
    replayed, live = [], []
    for n in range(ROUNDS):
        answer.outcome = "deferred"
        parked = await ctx.tools.execute(ToolExecutionInput(f"p{n}", "run_code", {"code": REPLAY_PROGRAM}, agent))
        approval_id = thaw_json(parked.meta)["approvalId"]  # type: ignore[index]
        replayed.append(await _timed(lambda: ctx.tools.resume(approval_id, "allowed-once")))
        answer.outcome = "allowed-once"
        live.append(await _timed(lambda: ctx.tools.execute(ToolExecutionInput(f"l{n}", "run_code", {"code": REPLAY_PROGRAM}, agent))))
    return statistics.median(replayed), statistics.median(live)


async def _bookkeeping(runtime: DenoCodeRuntime) -> tuple[float, float]:
    ctx, agent, _ = _app(runtime)
    real_pending = RecordedCall.pending
    kept, bare = [], []
    for n in range(ROUNDS):
        call = ToolExecutionInput(f"s{n}", "run_code", {"code": SEQUENTIAL_PROGRAM}, agent)
        kept.append(await _timed(lambda: ctx.tools.execute(call)))
        RecordedCall.pending = classmethod(lambda cls, *args: None)  # type: ignore[assignment,method-assign]
        try:
            call = ToolExecutionInput(f"b{n}", "run_code", {"code": SEQUENTIAL_PROGRAM}, agent)
            bare.append(await _timed(lambda: ctx.tools.execute(call)))
        finally:
            RecordedCall.pending = real_pending  # type: ignore[method-assign]
    return statistics.median(kept), statistics.median(bare)


async def _measure() -> list[Row]:
    runtime = DenoCodeRuntime()
    try:
        await runtime.warm()
        replayed, live = await _replay(runtime)
        kept, bare = await _bookkeeping(runtime)
    finally:
        await runtime.dispose()
    return [
        ("replay: rerun of 10 journaled calls + the approved one (ms)", replayed * 1000, "", True),
        ("replay: the same program live, every call through the pipeline (ms)", live * 1000, "", True),
        ("replay: rerun / live", replayed / live, "<= 1.5", replayed / live <= 1.5),
        ("replay bookkeeping: 100 sequential calls via run_code, kept / not kept", kept / bare, "<= 1.10",
         kept / bare <= 1.10),
    ]


def run() -> list[Row]:
    return asyncio.run(_measure())


if __name__ == "__main__":
    for row in run():
        print(row)
