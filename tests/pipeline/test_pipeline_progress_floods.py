"""Progress floods (issue 34, item 16): "i of i" cannot slip past the rate limit, and a flood lets the loop run.

The rate limit reads ``dsh_tools.progress.clock``; a frozen fake clock makes
every report fall inside one interval, so what is delivered is exactly what
the limit lets through. Before the fix, a report that completed its work
always went through (200,000 of 200,000), and dropped reports never yielded.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

import dsh_tools.progress
from dsh_tools import ToolExecution, ToolExecutionInput, ToolProgress, boot, tool
from dsh_tools.progress import YIELD_EVERY


@pytest.fixture
def frozen_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(dsh_tools.progress, "clock", lambda: 1000.0)
    yield


async def test_reporting_i_of_i_in_a_loop_is_rate_limited_like_any_report(frozen_clock: None) -> None:
    ctx = boot()
    heard: list[ToolProgress] = []
    ctx.on("tools/progress", lambda execution, progress: heard.append(progress))

    @tool
    async def crawl(exec: ToolExecution) -> str:
        """Crawl."""
        for page in range(1, 20_001):
            await exec.report_progress(page, total=page)  # every report "completes" the work
        return "crawled"

    ctx.tools.register(crawl)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "crawl", {}))
    assert result.text == "crawled"
    # The first goes through, then one completing report past the limit; the other 19,998 fall in the interval.
    assert [p.progress for p in heard] == [1.0, 2.0]


async def test_a_completing_report_after_ordinary_ones_still_goes_through(frozen_clock: None) -> None:
    ctx = boot()
    heard: list[ToolProgress] = []
    ctx.on("tools/progress", lambda execution, progress: heard.append(progress))

    @tool
    async def build(exec: ToolExecution) -> str:
        """Build."""
        for step in range(1, 10):
            await exec.report_progress(step, total=10)
        await exec.report_progress(10, total=10)  # the completion a UI waits for
        return "built"

    ctx.tools.register(build)
    await ctx.tools.execute(ToolExecutionInput("c1", "build", {}))
    assert [p.progress for p in heard] == [1.0, 10.0]


async def test_a_flood_of_dropped_reports_lets_the_event_loop_run(frozen_clock: None) -> None:
    ctx = boot()
    turns = 0
    flooding = asyncio.Event()

    async def bystander() -> None:
        nonlocal turns
        await flooding.wait()
        while flooding.is_set():
            turns += 1
            await asyncio.sleep(0)

    @tool
    async def flood(exec: ToolExecution) -> str:
        """Flood."""
        flooding.set()
        for n in range(YIELD_EVERY * 50):
            await exec.report_progress(n)
        flooding.clear()
        return "done"

    ctx.tools.register(flood)
    waiting = asyncio.ensure_future(bystander())
    await ctx.tools.execute(ToolExecutionInput("c1", "flood", {}))
    await waiting
    assert turns >= 40  # the bystander ran during the flood, about once per YIELD_EVERY dropped reports
