"""Parallel tool calls (issue 10): what overlap buys, and what the scheduling costs.

Every ratio compares figures measured in this one run, so a noisy, shared
machine moves both sides together:

* 10 concurrency-safe calls that each await 50 ms, as one ``execute_batch``,
  against one such call through ``execute()`` (target ≤ 1.3×);
* the same 10 with an exclusive no-op call in the middle: the barrier splits
  the pool into two waves (target ≤ 2.3× one call);
* 1,000 no-op safe calls as one batch against the same calls through
  ``execute()`` one by one: the lane's own overhead (target ≤ 1.5×);
* Code Mode: ``Promise.all`` over 10 safe 50 ms bindings in a real Deno
  program, timed by the program itself (target ≤ 120 ms).

Run standalone: ``python benchmarks/bench_batch.py``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from dsh_tools import ContentBlock, ToolExecution, ToolExecutionInput, boot, text_block
from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.json_values import thaw_json

Row = tuple[str, float, str, bool]
ROUNDS = 5
NOOP_CALLS = 1_000


class Sleeper:
    """Awaits ``seconds``; safe unless told otherwise."""

    description = "Waits, then answers."
    parameters: dict[str, Any] = {"type": "object"}

    def __init__(self, name: str, seconds: float, *, safe: bool) -> None:
        self.name = name
        self.seconds = seconds
        self.safe = safe

    def is_concurrency_safe(self, args: object) -> bool:
        return self.safe

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        if self.seconds:
            await asyncio.sleep(self.seconds)
        return [text_block("ok")]


async def _best(step: Callable[[], Awaitable[object]], rounds: int = ROUNDS) -> float:
    """The fastest of ``rounds`` runs, in seconds (the least disturbed by the neighbours)."""
    best = float("inf")
    for _ in range(rounds):
        started = time.perf_counter()
        await step()
        best = min(best, time.perf_counter() - started)
    return best


async def _in_process() -> list[Row]:
    ctx = boot(timeouts=False)
    ctx.tools.register(Sleeper("wait", 0.05, safe=True))
    ctx.tools.register(Sleeper("write", 0.0, safe=False))
    ctx.tools.register(Sleeper("noop", 0.0, safe=True))

    def calls(name: str, n: int) -> list[ToolExecutionInput]:
        return [ToolExecutionInput(f"c{i}", name, {}) for i in range(n)]

    ten = calls("wait", 10)
    barrier = [*ten[:5], ToolExecutionInput("w", "write", {}), *ten[5:]]
    noops = calls("noop", NOOP_CALLS)

    async def one_by_one() -> None:
        for call in noops:
            await ctx.tools.execute(call)

    one = await _best(lambda: ctx.tools.execute(ten[0]))
    batch = await _best(lambda: ctx.tools.execute_batch(ten))
    split = await _best(lambda: ctx.tools.execute_batch(barrier))
    serial_noops = await _best(one_by_one)
    batched_noops = await _best(lambda: ctx.tools.execute_batch(noops))
    return [
        ("batch: one safe 50 ms call via execute() (ms)", one * 1000, "(reference)", True),
        ("batch: 10 safe 50 ms calls, one batch (ms)", batch * 1000, "-", True),
        ("batch: 10 safe 50 ms calls / one call", batch / one, "≤ 1.3×", batch / one <= 1.3),
        ("batch: 10 safe + 1 exclusive no-op in the middle / one call", split / one, "≤ 2.3×", split / one <= 2.3),
        (f"batch: {NOOP_CALLS} no-op safe calls via execute() (ms)", serial_noops * 1000, "(reference)", True),
        (f"batch: {NOOP_CALLS} no-op safe calls, one batch (ms)", batched_noops * 1000, "-", True),
        (
            f"batch: {NOOP_CALLS} no-op batch / one by one",
            batched_noops / serial_noops,
            "≤ 1.5×",
            batched_noops / serial_noops <= 1.5,
        ),
    ]


PROGRAM = """
const started = performance.now();
await Promise.all(Array.from({ length: 10 }, () => tools.wait({})));
return performance.now() - started;
"""


async def _code_mode() -> list[Row]:
    runtime = DenoCodeRuntime()
    ctx = boot(mode="code", code_runtime=runtime, timeouts=False)
    ctx.tools.register(Sleeper("wait", 0.05, safe=True))
    try:
        best = float("inf")
        for round_ in range(ROUNDS):
            result = await ctx.tools.execute(ToolExecutionInput(f"run{round_}", "run_code", {"code": PROGRAM}))
            assert not result.is_error, result.text
            meta = thaw_json(result.meta)
            assert isinstance(meta, dict) and meta["dispatches"] == 10, meta
            best = min(best, float(result.text.splitlines()[-1]))
    finally:
        await ctx.dispose()
        await runtime.dispose()
    return [("code mode: Promise.all over 10 safe 50 ms bindings, program time (ms)", best, "≤ 120 ms", best <= 120)]


def run() -> list[Row]:
    """Measure and return ``(figure, value, target, holds)`` rows."""
    return asyncio.run(_in_process()) + asyncio.run(_code_mode())


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{figure:66} {value:>10,.3f}  {target:>12}  {'ok' if holds else 'MISS'}")
