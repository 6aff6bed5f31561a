"""What one call costs as shipped (issue 33's gates): ``boot()`` defaults, and Code Mode sub-calls.

* bare ``execute()`` with ``boot()`` defaults: the memory journal on, the
  timeout and retry policies installed, one no-op tool and nothing else;
* the same registry with one listener on each of the three waterfalls, one
  guard and one ``tools/result`` observer, all pass-through;
* 100 sequential Code Mode tool calls: one TypeScript program calling a no-op
  tool 100 times through ``run_code`` (real Deno, warm runtime, every call
  through the pipeline), against the same program in the same runtime with
  the tool bound directly (no pipeline). Medians of 7 runs each, alternated.
  Beside the wall-clock figures (the gate), the event loop's own CPU time
  for the same runs: what the pipeline adds in Python, without the Deno
  process's share and with much less of this shared machine's noise (the
  wall ratio moves by ±0.1 between runs; most of the bindings figure is the
  Deno round trips, the same on both sides).

Run standalone from the repository root: ``python -m benchmarks.bench_call_cost``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from collections.abc import Awaitable, Callable

from benchmarks._common import Noop, Row
from benchmarks.bench_pipeline import _install_listeners, _rate
from dsh_tools import Agent, Context, ToolExecutionInput, boot
from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.runtime import CodeBindingNamespace, CodeRunRequest
from dsh_tools.json_values import JsonValue

CALLS = 20_000
CODE_ROUNDS = 7
SUB_CALLS = 100
PROGRAM = f"let n = 0; for (let i = 0; i < {SUB_CALLS}; i++) {{ await tools.noop({{}}); n++; }} return n;"


def _defaults() -> Context:
    ctx = boot()
    ctx.tools.register(Noop())
    return ctx


async def _pipeline_rates() -> tuple[float, float]:
    bare, full = _defaults(), _defaults()
    _install_listeners(full)
    call = ToolExecutionInput("bench", "noop", {})
    for ctx in (bare, full):
        probe = await ctx.tools.execute(call)
        assert not probe.is_error, probe
    return await _rate(lambda: bare.tools.execute(call), CALLS), await _rate(lambda: full.tools.execute(call), CALLS)


async def _timed(step: Callable[[], Awaitable[object]]) -> tuple[float, float]:
    """Wall-clock and this thread's CPU milliseconds of one ``step()``."""
    started, cpu = time.perf_counter(), time.thread_time()
    await step()
    return (time.perf_counter() - started) * 1000, (time.thread_time() - cpu) * 1000


async def _code_mode() -> tuple[tuple[float, float], tuple[float, float]]:
    """``(wall, cpu)`` medians in ms: through ``execute()``, then as bare bindings."""
    runtime = DenoCodeRuntime()
    ctx = boot(mode="code", code_runtime=runtime)
    ctx.tools.register(Noop())
    agent = Agent(ctx, name="bench")

    async def noop(args: JsonValue) -> JsonValue:
        return None

    bound = CodeRunRequest(PROGRAM, [CodeBindingNamespace("tools", {"noop": noop})])

    async def through_pipeline() -> None:
        result = await ctx.tools.execute(ToolExecutionInput("bench", "run_code", {"code": PROGRAM}, agent))
        assert not result.is_error, result

    async def bindings_only() -> None:
        result = await runtime.run(bound)
        assert result.value == SUB_CALLS, result

    try:
        await runtime.warm()
        await through_pipeline()
        await bindings_only()
        piped, bare = [], []
        for _ in range(CODE_ROUNDS):
            piped.append(await _timed(through_pipeline))
            bare.append(await _timed(bindings_only))
    finally:
        await ctx.dispose()
        await runtime.dispose()
    return _medians(piped), _medians(bare)


def _medians(samples: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(wall for wall, _ in samples), statistics.median(cpu for _, cpu in samples)


async def _measure() -> list[Row]:
    bare_rate, full_rate = await _pipeline_rates()
    (piped_ms, piped_cpu), (bound_ms, bound_cpu) = await _code_mode()
    return [
        ("call cost: bare execute() with boot() defaults calls/s", bare_rate, "A/B ≥ 2.0×", True),
        ("call cost: listeners + guard + observer, boot() defaults calls/s", full_rate, "A/B ≥ 1.8×", True),
        (f"call cost: {SUB_CALLS} Code Mode tool calls through execute() (ms)", piped_ms, "(printed)", True),
        (f"call cost: the same {SUB_CALLS} calls as bare bindings (ms)", bound_ms, "(printed)", True),
        (
            f"call cost: {SUB_CALLS} Code Mode calls, pipeline / bindings",
            piped_ms / bound_ms,
            "≤ 1.5",
            piped_ms / bound_ms <= 1.5,
        ),
        (f"call cost: Python CPU of the {SUB_CALLS} calls through execute() (ms)", piped_cpu, "(printed)", True),
        (f"call cost: Python CPU of the {SUB_CALLS} calls as bare bindings (ms)", bound_cpu, "(printed)", True),
    ]


def run() -> list[Row]:
    """Measure and return ``(figure, value, target, holds)`` rows."""
    return asyncio.run(_measure())


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{figure:64} {value:>12,.3f}  {target:>12}  {'ok' if holds else 'MISS'}")
