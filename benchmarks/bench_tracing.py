"""Tracing overhead: a no-op tool's ``execute()`` with and without ``instrument(ctx)``.

Three registries measured in the same run, rounds interleaved so machine noise
hits them alike; the µs rows keep each one's best round, the added-% rows the
median over rounds of the ratio to the bare round run just before (a paired
figure, so a load spike that hits one round skews neither side):

* bare: nothing instrumented (what every uninstrumented registry pays: no
  listeners, one empty-tuple probe check per stage);
* instrumented, no-op provider: ``instrument(ctx, NoOpTracerProvider())``,
  i.e. what dsh-tools' own probe costs (the target: ≤ 15 % added);
* instrumented, SDK provider: a real ``TracerProvider`` exporting to memory,
  so the row includes the OpenTelemetry SDK's own per-span cost (reference).

Run standalone: ``python benchmarks/bench_tracing.py``.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import NoOpTracerProvider

from dsh_tools import ContentBlock, Context, ToolExecution, ToolExecutionInput, boot, instrument

Row = tuple[str, float, str, bool]
CALLS = 2_000
ROUNDS = 21


class Noop:
    name = "noop"
    description = "Does nothing."
    parameters = {"type": "object", "properties": {}}

    async def execute(self, args: Any, exec: ToolExecution) -> list[ContentBlock]:
        return []


def _registry() -> Context:
    ctx = boot(timeouts=False)
    ctx.tools.register(Noop())
    return ctx


async def _round(ctx: Context, call: ToolExecutionInput) -> float:
    start = time.perf_counter()
    for _ in range(CALLS):
        await ctx.tools.execute(call)
    return (time.perf_counter() - start) / CALLS * 1e6


async def _measure() -> list[Row]:
    bare, noop, sdk = _registry(), _registry(), _registry()
    instrument(noop, NoOpTracerProvider())
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(sdk, provider)
    call = ToolExecutionInput("bench", "noop", {})
    rounds: dict[str, list[float]] = {"bare": [], "noop": [], "sdk": []}
    for _ in range(ROUNDS):
        for name, ctx in (("bare", bare), ("noop", noop), ("sdk", sdk)):
            rounds[name].append(await _round(ctx, call))
        exporter.clear()
    best = {name: min(times) for name, times in rounds.items()}

    def added_by(name: str) -> float:
        return statistics.median(t / b for t, b in zip(rounds[name], rounds["bare"], strict=True)) - 1

    added = added_by("noop")
    return [
        ("tracing: bare execute() µs/call", best["bare"], "-", True),
        ("tracing: instrumented (no-op provider) µs/call", best["noop"], "-", True),
        ("tracing: added by instrument() (no-op provider) %", added * 100, "≤ 15 %", added <= 0.15),
        ("tracing: instrumented (SDK, in-memory export) µs/call", best["sdk"], "-", True),
        ("tracing: added with the SDK recording (reference) %", added_by("sdk") * 100, "-", True),
    ]


def run() -> list[Row]:
    """Measure and return ``(figure, value, target, holds)`` rows."""
    return asyncio.run(_measure())


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{figure:58} {value:>12,.3f}  {target:>8}  {'ok' if holds else 'MISS'}")
