"""Pipeline overhead: executions per second of a no-op tool through ``execute()``.

Two configurations, each against a bare ``await body(args, exec)`` loop measured
in the same run (so the ratio says what the pipeline costs on *this* machine):

* bare: a registry with the no-op tool and nothing else;
* full: one listener on each of the three waterfalls, one guard and one
  ``tools/result`` observer, all pass-through.

Targets (2-core machine): ≥ 10,000/s full. The bare rate (issue 15: ≥ 20,000/s) is held
by A/B instead (issue 22): no more than 10 % below the merge-base, measured alternately in one session.
Run standalone from the repository root: ``python -m benchmarks.bench_pipeline``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from benchmarks._common import Noop, Row, noop_registry
from dsh_tools import (
    ExecuteNext,
    PostNext,
    PostToolDecision,
    PreNext,
    PreToolDecision,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
)

CALLS = 20_000
ROUNDS = 3


async def _rate(step: Callable[[], Awaitable[object]], calls: int) -> float:
    best = 0.0
    for _ in range(ROUNDS):
        start = time.perf_counter()
        for _ in range(calls):
            await step()
        best = max(best, calls / (time.perf_counter() - start))
    return best


def _install_listeners(ctx: Any) -> None:
    async def pre(execution: ToolExecution, next: PreNext) -> PreToolDecision:
        return await next()

    async def around(execution: ToolExecution, next: ExecuteNext) -> ToolExecutionResult:
        return await next()

    async def post(execution: ToolExecution, result: ToolExecutionResult, next: PostNext) -> PostToolDecision:
        return await next()

    def observe(execution: ToolExecution, result: ToolExecutionResult) -> None:
        return None

    ctx.on("tools/pre-execute", pre)
    ctx.on("tools/execute", around)
    ctx.on("tools/post-execute", post)
    ctx.on("tools/result", observe)
    ctx.tools.guard(lambda execution: None)


async def _measure() -> list[Row]:
    body = Noop()
    bare_ctx = noop_registry()
    full_ctx = noop_registry()
    _install_listeners(full_ctx)
    call = ToolExecutionInput("bench", "noop", {})
    probe = await bare_ctx.tools.execute(call)
    assert not probe.is_error, probe
    execution = None  # the direct loop passes the same frozen args the pipeline would

    async def direct() -> object:
        return await body.execute({}, execution)  # type: ignore[arg-type]

    direct_rate = await _rate(direct, CALLS)
    bare_rate = await _rate(lambda: bare_ctx.tools.execute(call), CALLS)
    full_rate = await _rate(lambda: full_ctx.tools.execute(call), CALLS)
    return [
        ("pipeline: bare execute() calls/s", bare_rate, "A/B", True),
        ("pipeline: 3 listeners + guard + observer calls/s", full_rate, "≥ 10,000", full_rate >= 10_000),
        ("pipeline: direct body calls/s (reference)", direct_rate, "-", True),
        ("pipeline: bare / direct ratio", bare_rate / direct_rate, "-", True),
        ("pipeline: full / direct ratio", full_rate / direct_rate, "-", True),
    ]


def run() -> list[Row]:
    """Measure and return ``(figure, value, target, holds)`` rows."""
    return asyncio.run(_measure())


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{figure:55} {value:>14,.3f}  {target:>10}  {'ok' if holds else 'MISS'}")
