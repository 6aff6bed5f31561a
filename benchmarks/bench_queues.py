"""Queued calls on DBOS (issue 36): latency and throughput, against a bare DBOS workflow+step on the same queue.

Worker processes (``dsh-tools worker benchmarks.queue_bench_tools``) serve
queue "bench" of a SQLite store; this process is the caller. Measured with one
worker, then two:

* a queued ``execute()`` of a one-line tool: latency p50/p99 (one call at a
  time) and calls/s (``CONCURRENT`` at once);
* the same figures for a bare DBOS workflow with one step (no dsh-tools in
  it), enqueued with a ``DBOSClient`` on the same queue, served by the same
  workers and awaited from this process at the same polling interval.

Both wait on DBOS's polling (workers for work, this process for results), at
the interval printed beside the figures. Gate: the queued call's p50 latency
is at most 1.5x the bare workflow's.

Run standalone: ``python -m benchmarks.bench_queues``.
"""

from __future__ import annotations

import asyncio
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from dsh_tools import ToolExecutionInput, boot
from dsh_tools.dbos import QueueOptions, configure

from benchmarks._common import Row

QUEUE = "bench"
POLLING_S = 0.1
SEQUENTIAL = 40
CONCURRENT = 100
GATE = 1.5
ROOT = Path(__file__).resolve().parents[1]


def _start_worker(url: str, executor_id: str, folder: Path) -> subprocess.Popen[str]:
    command = [
        sys.executable, "-m", "dsh_tools.cli", "worker", "benchmarks.queue_bench_tools", "--store", url,
        "--queue", QUEUE, "--executor-id", executor_id, "--drain-seconds", "0",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(folder / f"{executor_id}.err", "w") as stderr:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, text=True, env=env, cwd=ROOT)
    assert process.stdout is not None
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        ready, _, _ = select.select([process.stdout], [], [], deadline - time.monotonic())
        if ready and "serving queue" in process.stdout.readline():
            return process
    process.kill()
    raise RuntimeError(f"worker {executor_id} did not start: {(folder / f'{executor_id}.err').read_text()[-1000:]}")


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def _measure(url: str, workers: int) -> dict[str, float]:
    from dbos import DBOSClient

    from dsh_tools.dbos.names import app_name, system_database_url

    queues = configure(url, queues={QUEUE: QueueOptions(polling_interval_s=POLLING_S)})
    ctx = boot(store=url, queues={"*": QUEUE}, timeouts=False)
    from benchmarks.queue_bench_tools import ping

    ctx.tools.register(ping)
    client = DBOSClient(system_database_url=system_database_url(url))
    store = ctx.tools.store

    async def queued(n: int) -> None:
        result = await ctx.tools.execute(ToolExecutionInput(f"b{workers}-{n}", "ping", {"n": n}))
        assert result.text == f"pong {n}", result.text

    async def bare(n: int) -> None:
        options: Any = {"workflow_name": "bench.bare", "queue_name": QUEUE, "application_name": app_name(QUEUE)}
        handle: Any = await client.enqueue_async(options, n)
        assert await handle.get_result(polling_interval_sec=POLLING_S) == f"pong {n}"

    try:
        for n in range(3):  # warm both paths (connections, imports)
            await queued(-n - 1)
            await bare(-n - 1)
        latency: dict[str, list[float]] = {"queued": [], "bare": []}
        for n in range(SEQUENTIAL):  # alternated, so drift hits both alike
            for kind, run in (("queued", queued), ("bare", bare)):
                started = time.perf_counter()
                await run(n)
                latency[kind].append(time.perf_counter() - started)
        figures: dict[str, float] = {}
        for kind, run in (("queued", queued), ("bare", bare)):
            figures[f"{kind} p50"] = statistics.median(latency[kind]) * 1000
            figures[f"{kind} p99"] = _percentile(latency[kind], 0.99) * 1000
            started = time.perf_counter()
            await asyncio.gather(*(run(1000 + n) for n in range(CONCURRENT)))
            figures[f"{kind} calls/s"] = CONCURRENT / (time.perf_counter() - started)
        return figures
    finally:
        client.destroy()
        queues.close()
        await ctx.dispose()
        await store.aclose()


def run() -> list[Row]:
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="dsh-bench-queues-") as folder_name:
        folder = Path(folder_name)
        url = f"sqlite:///{folder / 'calls.db'}"
        configure(url, queues={QUEUE: QueueOptions(polling_interval_s=POLLING_S)}).close()
        processes: list[subprocess.Popen[str]] = []
        try:
            for workers in (1, 2):
                while len(processes) < workers:
                    processes.append(_start_worker(url, f"bench-{len(processes)}", folder))
                figures = asyncio.run(_measure(url, workers))
                label = f"queues, {workers} worker{'s' if workers > 1 else ''}, polling {POLLING_S * 1000:g} ms"
                for kind in ("queued", "bare"):
                    what = "dsh-tools call" if kind == "queued" else "bare DBOS workflow+step"
                    rows.append((f"{label}: {what} p50 (ms)", figures[f"{kind} p50"], "", True))
                    rows.append((f"{label}: {what} p99 (ms)", figures[f"{kind} p99"], "", True))
                    rows.append((f"{label}: {what} calls/s ({CONCURRENT} at once)", figures[f"{kind} calls/s"], "", True))
                ratio = figures["queued p50"] / figures["bare p50"]
                rows.append((f"{label}: queued/bare p50 latency", ratio, f"<= {GATE}x", ratio <= GATE))
        finally:
            for process in processes:
                process.kill()
                process.wait(timeout=30)
                if process.stdout is not None:
                    process.stdout.close()
    return rows


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{figure}: {value:,.3f} {target} {'' if holds else 'MISSED'}")
