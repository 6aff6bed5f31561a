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

The last row times the SDK alone doing what one traced call asks of it (start a
span with the same attributes, make it current, end it, export it): that cost
is the SDK's, paid by any instrumented library, and on these machines it is
about as large as a whole no-op call, which is why the target governs what
``instrument`` itself adds (the no-op provider row).

Run standalone from the repository root: ``python -m benchmarks.bench_tracing``.
"""

from __future__ import annotations

import asyncio
import statistics
import time

from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import NoOpTracerProvider, SpanKind

from benchmarks._common import Row, noop_registry
from dsh_tools import Context, ToolExecutionInput, instrument

CALLS = 2_000
ROUNDS = 21


async def _round(ctx: Context, call: ToolExecutionInput) -> float:
    start = time.perf_counter()
    for _ in range(CALLS):
        await ctx.tools.execute(call)
    return (time.perf_counter() - start) / CALLS * 1e6


def _sdk_span_alone(provider: TracerProvider) -> float:
    """µs per span for the SDK by itself: start with a traced call's attributes, attach, detach, end."""
    tracer = trace.get_tracer("bench", tracer_provider=provider)
    attributes = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "noop",
        "gen_ai.tool.call.id": "bench",
        "gen_ai.tool.type": "function",
    }
    start = time.perf_counter()
    for _ in range(CALLS):
        span = tracer.start_span("execute_tool noop", kind=SpanKind.INTERNAL, attributes=attributes)
        otel_context.detach(otel_context.attach(trace.set_span_in_context(span)))
        span.end()
    return (time.perf_counter() - start) / CALLS * 1e6


async def _measure() -> list[Row]:
    bare, noop, sdk = noop_registry(), noop_registry(), noop_registry()
    instrument(noop, NoOpTracerProvider())
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    instrument(sdk, provider)
    call = ToolExecutionInput("bench", "noop", {})
    rounds: dict[str, list[float]] = {"bare": [], "noop": [], "sdk": [], "span": []}
    for _ in range(ROUNDS):
        for name, ctx in (("bare", bare), ("noop", noop), ("sdk", sdk)):
            rounds[name].append(await _round(ctx, call))
        rounds["span"].append(_sdk_span_alone(provider))
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
        ("tracing: the SDK's own span alone (reference) µs", best["span"], "-", True),
    ]


def run() -> list[Row]:
    """Measure and return ``(figure, value, target, holds)`` rows."""
    return asyncio.run(_measure())


if __name__ == "__main__":
    for figure, value, target, holds in run():
        print(f"{figure:58} {value:>12,.3f}  {target:>8}  {'ok' if holds else 'MISS'}")
