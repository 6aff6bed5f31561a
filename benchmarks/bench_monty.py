"""Python Code Mode figures beside the TypeScript ones of the same run (issue 26; a benchmark, not a test).

Both languages are measured here, back to back in one process, so the
ratios hold on a noisy machine: ``run_code`` of an empty program back to back
(through the registry, the pipeline and the bridge; p50 must not exceed the
TypeScript figure), and one program making 100 sequential binding calls
(at most 1.5 times the TypeScript figure). The renderer's cold time is in
``bench_codegen``. Run standalone with ``python -m benchmarks.bench_monty``.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time

from dsh_tools import RUN_CODE_NAME, Agent, ToolExecutionInput, boot
from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.monty import MontyCodeRuntime
from dsh_tools.code_mode.runtime import CodeBindingNamespace, CodeRunRequest, CodeRuntime
from dsh_tools.json_values import JsonValue

Row = tuple[str, float, str, bool]

BACK_TO_BACK = 60
CALLS = 100
CALL_ROUNDS = 7
PROGRAMS = {
    "typescript": ("return 1", f"let s = 0; for (let i = 0; i < {CALLS}; i++) s += await tools.echo(i); return s"),
    "python": ("return 1", f"s = 0\nfor i in range({CALLS}):\n    s += await tools.echo(i)\nreturn s"),
}


async def _back_to_back(runtime: CodeRuntime, empty: str) -> float:
    ctx = boot(mode="code", code_runtime=runtime)

    async def run_code(n: int) -> None:
        agent = Agent(ctx, name=f"agent-{n}")
        result = await ctx.tools.execute(ToolExecutionInput(f"c{n}", RUN_CODE_NAME, {"code": empty}, agent=agent))
        assert not result.is_error and result.text == "1", result.text

    await run_code(-1)  # warm: pools filled, caches loaded
    times = []
    for n in range(BACK_TO_BACK):
        started = time.perf_counter()
        await run_code(n)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def _calls(runtime: CodeRuntime, program: str) -> float:
    async def echo(args: JsonValue) -> JsonValue:
        return args

    request = CodeRunRequest(program, [CodeBindingNamespace("tools", {"echo": echo})])
    await runtime.run(request)  # warm
    times = []
    for _ in range(CALL_ROUNDS):
        started = time.perf_counter()
        result = await runtime.run(request)
        times.append((time.perf_counter() - started) * 1000)
        assert result.value == sum(range(CALLS)), result
    return statistics.median(times)


async def _measure() -> list[Row]:
    figures: dict[str, tuple[float, float]] = {}
    for language, runtime in (("typescript", DenoCodeRuntime()), ("python", MontyCodeRuntime())):
        empty, calls = PROGRAMS[language]
        try:
            figures[language] = (await _back_to_back(runtime, empty), await _calls(runtime, calls))
        finally:
            await runtime.dispose()
    ts_empty, ts_calls = figures["typescript"]
    py_empty, py_calls = figures["python"]
    return [
        ("run_code empty program back to back p50, TypeScript (ms)", round(ts_empty, 1), "(reference)", True),
        ("run_code empty program back to back p50, Python (ms)", round(py_empty, 1), f"<= TS {ts_empty:.1f}",
         py_empty <= ts_empty),
        (f"{CALLS} sequential binding calls in one program, TypeScript (ms)", round(ts_calls, 1), "(reference)", True),
        (f"{CALLS} sequential binding calls in one program, Python (ms)", round(py_calls, 1),
         f"<= 1.5x TS {1.5 * ts_calls:.1f}", py_calls <= 1.5 * ts_calls),
    ]


def run() -> list[Row]:
    """Measure and return the rows (starts its own event loop)."""
    return asyncio.run(_measure())


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{'OK  ' if holds else 'MISS'} {figure}: {value} (target {target})", file=sys.stdout)
