"""Progress over MCP, both ways, on a real streamable-HTTP server on 127.0.0.1.

``serve_mcp`` turns a body's ``exec.report_progress`` into
``notifications/progress`` for a client that sent a ``progressToken``, and
``mcp_tools`` turns those notifications back into the calling registry's
``tools/progress``. The served body waits until the client has heard each
report before it goes on, so the test never races the notification against
the result. The rate limit's clock is a fake that moves a second per reading.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Iterator

import pytest

import dsh_tools.progress
from dsh_tools import Agent, Context, ToolExecution, ToolExecutionInput, ToolProgress, boot, tool
from dsh_tools.mcp import StreamableHttpParameters, mcp_tools, serve_mcp
from mcp_support import http_server

HEARD_ENOUGH = 10.0
"""Seconds before a missing notification fails the test instead of hanging it."""


@pytest.fixture(autouse=True)
def moving_clock(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    ticks = itertools.count()
    monkeypatch.setattr(dsh_tools.progress, "clock", lambda: float(next(ticks)))
    yield


def served_steps(heard: list[asyncio.Event]) -> tuple[Context, Agent]:
    ctx = boot()

    @tool
    async def steps(exec: ToolExecution) -> str:
        """Three steps, each reported."""
        for step, event in enumerate(heard, start=1):
            await exec.report_progress(step, total=len(heard), message=f"step {step}")
            await asyncio.wait_for(event.wait(), HEARD_ENOUGH)  # until the client has heard it
        await exec.report_progress(1, total=3, message="starting over")  # backwards: not sent over MCP
        return "done"

    ctx.tools.register(steps)
    return ctx, Agent(ctx, name="server")


async def test_a_servers_progress_becomes_the_client_calls_progress() -> None:
    heard = [asyncio.Event() for _ in range(3)]
    served_ctx, agent = served_steps(heard)
    async with http_server(serve_mcp(served_ctx, agent=agent).streamable_http_app()) as url:
        ctx = boot()
        toolset = await mcp_tools(ctx, StreamableHttpParameters(url=url))
        reports: list[ToolProgress] = []

        def listen(execution: ToolExecution, progress: ToolProgress) -> None:
            reports.append(progress)
            heard[len(reports) - 1].set()

        ctx.on("tools/progress", listen)
        try:
            result = await ctx.tools.execute(ToolExecutionInput("client-1", "steps", {}))
        finally:
            await toolset.aclose()
    assert result.text == "done"
    assert reports == [ToolProgress("client-1", step, 3, f"step {step}") for step in (1, 2, 3)]


async def test_serve_mcp_sends_the_progress_a_client_asked_for_always_increasing() -> None:
    heard = [asyncio.Event() for _ in range(3)]
    served_ctx, agent = served_steps(heard)
    async with http_server(serve_mcp(served_ctx, agent=agent).streamable_http_app()) as url:
        toolset = await mcp_tools(boot(), StreamableHttpParameters(url=url))
        session = toolset.session
        assert session is not None
        notes: list[tuple[float, float | None, str | None]] = []

        async def on_progress(progress: float, total: float | None, message: str | None) -> None:
            notes.append((progress, total, message))
            heard[len(notes) - 1].set()

        try:
            answered = await session.call_tool("steps", {}, progress_callback=on_progress)
        finally:
            await toolset.aclose()
    assert not answered.is_error
    assert notes == [(1.0, 3.0, "step 1"), (2.0, 3.0, "step 2"), (3.0, 3.0, "step 3")]  # "starting over" not sent
