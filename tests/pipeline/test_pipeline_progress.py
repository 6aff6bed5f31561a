"""``await exec.report_progress(...)`` → ``tools/progress``: delivered, rate-limited, never after the call settles.

The rate limit reads ``dsh_tools.progress.clock``; these tests replace it
with a fake clock, so nothing here waits.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest

import dsh_tools.progress
from dsh_tools import (
    Agent,
    ToolExecution,
    ToolExecutionInput,
    ToolExecutionResult,
    ToolProgress,
    boot,
    tool,
)


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeClock]:
    fake = FakeClock()
    monkeypatch.setattr(dsh_tools.progress, "clock", fake)
    yield fake


async def test_reports_reach_progress_listeners_as_tool_progress_records(clock: FakeClock) -> None:
    ctx = boot()
    heard: list[tuple[str, ToolProgress]] = []

    async def listen_async(execution: ToolExecution, progress: ToolProgress) -> None:
        heard.append(("async", progress))

    ctx.on("tools/progress", lambda execution, progress: heard.append((execution.call_id, progress)))
    ctx.on("tools/progress", listen_async)

    @tool
    async def build(exec: ToolExecution) -> str:
        """Build the project."""
        await exec.report_progress(1, total=4, message="compiling")
        assert [who for who, _ in heard] == ["c1", "async"]  # delivered before report_progress returns
        clock.now += 1
        await exec.report_progress(2.5)
        return "built"

    ctx.tools.register(build)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "build", {}))
    assert result.text == "built"
    assert [progress for who, progress in heard if who == "c1"] == [
        ToolProgress("c1", 1, 4, "compiling"),
        ToolProgress("c1", 2.5),
    ]
    assert heard[0][1].to_json() == {"callId": "c1", "progress": 1, "total": 4, "message": "compiling"}
    assert heard[2][1].to_json() == {"callId": "c1", "progress": 2.5}


async def test_reports_closer_than_the_interval_are_dropped_unless_they_complete(clock: FakeClock) -> None:
    ctx = boot()
    heard: list[float] = []
    ctx.on("tools/progress", lambda execution, progress: heard.append(progress.progress))

    @tool
    async def crawl(exec: ToolExecution) -> str:
        """Crawl ten pages."""
        for page in range(1, 11):
            await exec.report_progress(page, total=10)
            clock.now += 0.03  # 30 ms a page: about every fourth report is delivered
        return "done"

    ctx.tools.register(crawl)
    await ctx.tools.execute(ToolExecutionInput("c1", "crawl", {}))
    assert heard == [1, 5, 9, 10]  # 10 completes the work, so the rate limit lets it through
    assert dsh_tools.progress.MIN_INTERVAL_MS == 100


async def test_no_report_is_heard_after_the_call_settles(clock: FakeClock) -> None:
    ctx = boot()
    heard: list[ToolProgress] = []
    settled: list[ToolExecutionResult] = []
    ctx.on("tools/progress", lambda execution, progress: heard.append(progress))
    ctx.on("tools/result", lambda execution, result: settled.append(result))
    kept: list[ToolExecution] = []

    @tool
    async def quick(exec: ToolExecution) -> str:
        """Return at once, keeping the execution."""
        kept.append(exec)
        return "ok"

    ctx.tools.register(quick)
    await ctx.tools.execute(ToolExecutionInput("c1", "quick", {}))
    clock.now += 10
    await kept[0].report_progress(1, total=1)  # a task the body left behind, reporting late
    assert heard == [] and len(settled) == 1


async def test_a_scoped_listener_hears_only_its_agents_calls(clock: FakeClock) -> None:
    ctx = boot()
    ada, bob = Agent(ctx, name="ada"), Agent(ctx, name="bob")
    heard: list[str] = []
    ada.ctx.on("tools/progress", lambda execution, progress: heard.append(progress.call_id))

    @tool
    async def step(exec: ToolExecution) -> str:
        """One step."""
        await exec.report_progress(1)
        return "stepped"

    ctx.tools.register(step)
    await ctx.tools.execute(ToolExecutionInput("a1", "step", {}, agent=ada))
    clock.now += 1
    await ctx.tools.execute(ToolExecutionInput("b1", "step", {}, agent=bob))
    assert heard == ["a1"]


async def test_a_failing_listener_is_logged_and_the_call_goes_on(
    clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    ctx = boot()
    later: list[float] = []

    def broken(execution: ToolExecution, progress: ToolProgress) -> None:
        raise RuntimeError("the progress bar fell over")

    ctx.on("tools/progress", broken)
    ctx.on("tools/progress", lambda execution, progress: later.append(progress.progress))

    @tool
    async def work(exec: ToolExecution) -> str:
        """Work."""
        await exec.report_progress(3)
        return "worked"

    ctx.tools.register(work)
    with caplog.at_level(logging.WARNING):
        result = await ctx.tools.execute(ToolExecutionInput("c1", "work", {}))
    assert result.text == "worked" and later == [3]
    assert "tools/progress listener" in caplog.text and "the progress bar fell over" in caplog.text


@pytest.mark.parametrize(
    ("arguments", "text"),
    [
        (("half",), "Error: report_progress: progress must be a finite number, got str"),
        ((float("nan"),), "Error: report_progress: progress must be a finite number, got float"),
        ((True,), "Error: report_progress: progress must be a finite number, got bool"),
        ((1, "ten"), "Error: report_progress: total must be a finite number, got str"),
        ((1, 10, 5), "Error: report_progress: message must be a str, got int"),
    ],
)
async def test_junk_progress_is_a_clear_error_from_the_body(arguments: tuple[object, ...], text: str) -> None:
    ctx = boot()

    @tool
    async def sloppy(exec: ToolExecution) -> str:
        """Report nonsense."""
        await exec.report_progress(*arguments)  # type: ignore[arg-type]
        return "unreachable"

    ctx.tools.register(sloppy)
    result = await ctx.tools.execute(ToolExecutionInput("c1", "sloppy", {}))
    assert result.is_error and result.text == text
