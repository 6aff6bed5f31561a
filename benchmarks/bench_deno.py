"""Code Mode figures: ``run_code`` back to back, eight at once, sustained (a benchmark, not a test).

Rows are ``(figure, value, target text, holds)``. Run standalone with
``.venv/bin/python benchmarks/bench_deno.py`` (``--quick`` skips the 30 s
throughput run).

Every run goes through the registry's ``run_code`` (the pipeline, the bridge,
the runtime) and gets a fresh Deno process no earlier run touched; the pool of
pre-started processes (``pool_size``) is what keeps start-up off the critical
path. "Our processes" are this Python process plus every Deno process the
runtime owns at that moment (resident memory, sampled every 5 ms).
"""

from __future__ import annotations

import asyncio
import os
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from dsh_tools import RUN_CODE_NAME, Agent, Context, ToolExecutionInput, boot
from dsh_tools.code_mode.deno import DenoCodeRuntime
from dsh_tools.code_mode.runtime import CodeBindingNamespace, CodeRunRequest
from dsh_tools.json_values import JsonValue

Row = tuple[str, float, str, bool]

BACK_TO_BACK = 60
AGENTS = 8
SUSTAINED_S = 30.0
CALLS = 1000
_PAGE = os.sysconf("SC_PAGE_SIZE")


def _rss(pid: int) -> int:
    try:
        raw = Path(f"/proc/{pid}/statm").read_bytes()
    except OSError:
        return 0
    return int(raw.split()[1]) * _PAGE


class Sampler:
    """Peak resident memory of this process plus the runtime's Deno processes."""

    def __init__(self, runtime: DenoCodeRuntime) -> None:
        self.runtime = runtime
        self.peak = 0
        self._task: asyncio.Task[None] | None = None

    def sample(self) -> int:
        total = _rss(os.getpid()) + sum(_rss(pid) for pid in self.runtime.live_pids)
        self.peak = max(self.peak, total)
        return total

    async def _loop(self) -> None:
        while True:
            self.sample()
            await asyncio.sleep(0.005)

    def __enter__(self) -> Sampler:
        self._task = asyncio.ensure_future(self._loop())
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._task is not None
        self._task.cancel()


def _code_mode(runtime: DenoCodeRuntime) -> tuple[Context, Callable[[int], Awaitable[None]]]:
    ctx = boot(mode="code", code_runtime=runtime)

    async def run_code(n: int) -> None:
        agent = Agent(ctx, name=f"agent-{n}")
        result = await ctx.tools.execute(ToolExecutionInput(f"c{n}", RUN_CODE_NAME, {"code": "return 1"}, agent=agent))
        assert not result.is_error and result.text == "1", result.text

    return ctx, run_code


async def _back_to_back() -> tuple[float, float]:
    runtime = DenoCodeRuntime()
    try:
        _, run_code = _code_mode(runtime)
        await runtime.warm()
        await run_code(-1)  # fills Deno's code cache
        times = []
        for n in range(BACK_TO_BACK):
            started = time.perf_counter()
            await run_code(n)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        await runtime.dispose()
    return statistics.median(times), statistics.quantiles(times, n=10)[-1]


async def _at_once() -> tuple[float, int]:
    runtime = DenoCodeRuntime(pool_size=AGENTS)
    try:
        _, run_code = _code_mode(runtime)
        await run_code(-1)
        await runtime.warm()
        with Sampler(runtime) as sampler:
            started = time.perf_counter()
            await asyncio.gather(*(run_code(n) for n in range(AGENTS)))
            elapsed = (time.perf_counter() - started) * 1000
            await runtime.warm()  # the pool refilled: that memory counts too
            sampler.sample()
    finally:
        await runtime.dispose()
    return elapsed, sampler.peak


async def _sustained() -> tuple[float, float, int]:
    runtime = DenoCodeRuntime()
    try:
        _, run_code = _code_mode(runtime)
        await runtime.warm()
        await run_code(-1)
        sampler = Sampler(runtime)
        runs, started, first_mb = 0, time.perf_counter(), 0.0
        while (elapsed := time.perf_counter() - started) < SUSTAINED_S:
            await run_code(runs)
            runs += 1
            if runs == 50:
                first_mb = _rss(os.getpid()) / 2**20  # after the warm-up allocations
        growth = _rss(os.getpid()) / 2**20 - first_mb
        sampler.sample()
    finally:
        pids = runtime.live_pids
        await runtime.dispose()
    left = sum(1 for pid in pids if os.path.exists(f"/proc/{pid}")) + len(runtime.live_pids)
    return runs / elapsed, growth, left


async def _calls() -> float:
    runtime = DenoCodeRuntime()
    try:
        async def echo(args: JsonValue) -> JsonValue:
            return args

        program = f"let s = 0; for (let i = 0; i < {CALLS}; i++) s += await tools.echo(i); return s"
        await runtime.warm()
        started = time.perf_counter()
        result = await runtime.run(CodeRunRequest(program, [CodeBindingNamespace("tools", {"echo": echo})]))
        calls_s = time.perf_counter() - started
        assert result.value == sum(range(CALLS)), result
    finally:
        await runtime.dispose()
    return calls_s


async def _measure(quick: bool) -> list[Row]:
    p50, p90 = await _back_to_back()
    burst_ms, peak = await _at_once()
    rows: list[Row] = [
        ("run_code empty program back to back p50 (ms)", round(p50, 1), "≤ 25 ms", p50 <= 25),
        ("run_code empty program back to back p90 (ms)", round(p90, 1), "≤ 40 ms", p90 <= 40),
        (f"{AGENTS} run_code at once (8 agents, pool_size={AGENTS}): all done (ms)", round(burst_ms, 1), "≤ 150 ms", burst_ms <= 150),
        (f"{AGENTS} run_code at once: peak memory of our processes (MB)", round(peak / 2**20, 1), "(printed)", True),
    ]
    if not quick:
        rate, growth, left = await _sustained()
        rows += [
            (f"run_code sustained {SUSTAINED_S:.0f} s back to back (runs/s)", round(rate, 1), "(printed)", True),
            ("  host memory growth over that run (MB)", round(growth, 1), "≤ 20 MB (flat)", growth <= 20),
            ("  Deno processes left after dispose", float(left), "0", left == 0),
        ]
    calls_s = await _calls()
    rows.append((f"{CALLS} sequential binding calls in one program (s)", round(calls_s, 3), "≤ 1 s", calls_s <= 1.0))
    return rows


def run(quick: bool = False) -> list[Row]:
    """Measure and return the rows (starts its own event loop)."""
    return asyncio.run(_measure(quick))


if __name__ == "__main__":
    for figure, value, target, holds in run(quick="--quick" in sys.argv):
        print(f"{'OK  ' if holds else 'MISS'} {figure}: {value} (target {target})")
