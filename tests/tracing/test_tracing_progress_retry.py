"""Tracing of progress reports and retries: span events, and the attempt count on the span."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

import dsh_tools.progress
from dsh_tools import Retry, ToolExecution, ToolExecutionInput, ToolOutput, boot, instrument, text_block, tool


@pytest.fixture(autouse=True)
def moving_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    ticks = itertools.count()
    monkeypatch.setattr(dsh_tools.progress, "clock", lambda: float(next(ticks)))
    yield


def traced() -> tuple[Any, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    ctx = boot()
    instrument(ctx, provider)
    return ctx, exporter


def events(span: ReadableSpan) -> list[tuple[str, dict[str, Any]]]:
    return [(event.name, dict(event.attributes or {})) for event in span.events]


async def test_progress_reports_are_span_events() -> None:
    ctx, exporter = traced()

    @tool
    async def build(exec: ToolExecution) -> str:
        """Build."""
        await exec.report_progress(1, total=2, message="compiling")
        await exec.report_progress(2)
        return "built"

    ctx.tools.register(build)
    await ctx.tools.execute(ToolExecutionInput("c1", "build", {}))
    (span,) = exporter.get_finished_spans()
    assert events(span) == [
        ("progress", {"dsh_tools.progress": 1, "dsh_tools.progress.total": 2, "dsh_tools.progress.message": "compiling"}),
        ("progress", {"dsh_tools.progress": 2}),
    ]


async def test_retries_are_span_events_and_the_span_counts_attempts_even_when_meta_cannot() -> None:
    ctx, exporter = traced()
    failures = [ConnectionError("reset"), TimeoutError("slow")]

    @tool(retry=Retry(3, backoff_ms=0))
    async def fetch() -> ToolOutput:
        """Fetch, with a list as its meta."""
        if failures:
            raise failures.pop(0)
        return ToolOutput([text_block("page")], meta=["not", "an", "object"])

    ctx.tools.register(fetch)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "fetch", {}))
    assert result.text == "page" and result.meta == ("not", "an", "object")
    (span,) = exporter.get_finished_spans()
    assert events(span) == [
        ("retry", {"dsh_tools.attempt": 1, "error.type": "_OTHER"}),
        ("retry", {"dsh_tools.attempt": 2, "error.type": "_OTHER"}),
    ]
    assert span.attributes is not None and span.attributes["dsh_tools.tool_types.attempts"] == 3
