"""DenoCodeRuntime latency figures (a benchmark, not a timed test).

Rows are ``(figure, value, target text, holds)``. Run standalone with
``.venv/bin/python benchmarks/bench_deno.py``.

Every run uses a fresh Deno process; the warm spare (started while the
previous run executes) hides process start-up. The round-trip target is
measured the way Code Mode uses the runtime — runs separated by at least the
spare's start-up time (a model turn is far longer) — and back-to-back runs,
where the spare is still loading, are reported alongside for honesty.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.runtime import CodeBindingNamespace, CodeRunRequest
from dsh_tools.json_values import JsonValue

Row = tuple[str, float, str, bool]

ROUND_TRIPS = 40
SPARE_WARMUP_S = 0.15
CALLS = 1000


async def _measure() -> list[Row]:
    rt = DenoCodeRuntime()
    try:
        empty = CodeRunRequest("return 1", [])
        await rt.run(empty)  # first run: cold spawn, also fills Deno's code cache
        warm: list[float] = []
        for _ in range(ROUND_TRIPS):
            await asyncio.sleep(SPARE_WARMUP_S)
            started = time.perf_counter()
            result = await rt.run(empty)
            warm.append((time.perf_counter() - started) * 1000)
            assert result.value == 1, result
        back_to_back: list[float] = []
        for _ in range(ROUND_TRIPS // 2):
            started = time.perf_counter()
            await rt.run(empty)
            back_to_back.append((time.perf_counter() - started) * 1000)

        async def echo(args: JsonValue) -> JsonValue:
            return args

        program = f"let s = 0; for (let i = 0; i < {CALLS}; i++) s += await tools.echo(i); return s"
        await asyncio.sleep(SPARE_WARMUP_S)
        started = time.perf_counter()
        result = await rt.run(CodeRunRequest(program, [CodeBindingNamespace("tools", {"echo": echo})]))
        calls_s = time.perf_counter() - started
        assert result.value == sum(range(CALLS)), result
    finally:
        await rt.dispose()
    p50 = statistics.median(warm)
    p90 = statistics.quantiles(warm, n=10)[-1]
    b2b = statistics.median(back_to_back)
    return [
        ("empty program round trip p50, warm spare (ms)", round(p50, 1), "≤ 15 ms", p50 <= 15),
        ("empty program round trip p90, warm spare (ms)", round(p90, 1), "(informational)", True),
        ("empty program back-to-back p50, spare still loading (ms)", round(b2b, 1), "(informational)", True),
        (f"{CALLS} sequential binding calls in one program (s)", round(calls_s, 3), "≤ 1 s", calls_s <= 1.0),
    ]


def run() -> list[Row]:
    """Measure and return the rows (starts its own event loop)."""
    return asyncio.run(_measure())


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{'OK  ' if holds else 'MISS'} {figure}: {value} (target {target})")
